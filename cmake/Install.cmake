# What `cmake --install` lays out under the prefix (and what the .deb holds):
#   bin/hangscope
#   share/man/man1/hangscope.1.gz, hangscope-<command>.1.gz     (cmake/ManPages.cmake)
#   share/bash-completion/completions/hangscope                 (cmake/Completion.cmake)
#   share/zsh/vendor-completions/_hangscope (prefix /usr), else share/zsh/site-functions/
#   share/hangscope/rules/builtin.toml: the built-in rules, an example to copy into
#     the rules directory read by default (HANGSCOPE_RULES_DIR, /etc/hangscope/rules.d)
#   share/doc/hangscope/: README.md, docs/*.md, json-schema.json, copyright, changelog.gz
#   lib/systemd/system/hangscope-watch.service: `hangscope watch` as a service, with the
#     path of the program installed (packaging/hangscope-watch.service)
install(TARGETS hangscope RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The unit names the program by its installed path: made at install time, so that
# cpack's prefix (/usr) is the one it says.
install(CODE "
  file(READ \"${PROJECT_SOURCE_DIR}/packaging/hangscope-watch.service\" unit)
  string(REPLACE \"@HANGSCOPE_BIN@\" \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/hangscope\"
         unit \"\${unit}\")
  file(WRITE \"${PROJECT_BINARY_DIR}/hangscope-watch.service\" \"\${unit}\")
  file(INSTALL \"${PROJECT_BINARY_DIR}/hangscope-watch.service\"
       DESTINATION \"\${CMAKE_INSTALL_PREFIX}/lib/systemd/system\")")

if(HANGSCOPE_MAN_FILES)
  install(FILES ${HANGSCOPE_MAN_FILES} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()

install(FILES ${HANGSCOPE_BASH_COMPLETION}
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
# Debian's zsh looks for packaged functions in /usr/share/zsh/vendor-completions, and
# for local ones in /usr/local/share/zsh/site-functions: chosen by the prefix installed
# to (cpack installs to /usr whatever the build was configured with).
install(CODE "
  if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
    set(zsh_dir vendor-completions)
  else()
    set(zsh_dir site-functions)
  endif()
  file(INSTALL \"${HANGSCOPE_ZSH_COMPLETION}\"
       DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}/zsh/\${zsh_dir}\")")

install(FILES ${HANGSCOPE_BUILTIN_RULES} DESTINATION ${CMAKE_INSTALL_DATADIR}/hangscope/rules)

file(GLOB doc_pages CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${doc_pages}
              ${PROJECT_SOURCE_DIR}/docs/json-schema.json
              ${PROJECT_SOURCE_DIR}/packaging/copyright
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
