# The man pages: written in AsciiDoc (docs/man/<page>.1.adoc, with the parts they share
# in docs/man/include/), made into gzipped troff at build time by asciidoctor (Debian's
# package asciidoctor). Without it the program still builds and the pages are skipped.
set(HANGSCOPE_MAN_PAGES
  hangscope
  hangscope-record
  hangscope-report
  hangscope-diff
  hangscope-watch
  hangscope-top
)
set(HANGSCOPE_MAN_DIR ${PROJECT_BINARY_DIR}/man)

find_program(HANGSCOPE_ASCIIDOCTOR asciidoctor)
find_program(HANGSCOPE_GZIP gzip)
if(NOT HANGSCOPE_ASCIIDOCTOR OR NOT HANGSCOPE_GZIP)
  message(STATUS "asciidoctor or gzip not found: the man pages are skipped "
                 "(scripts/install-deps.sh installs them)")
  set(HANGSCOPE_MAN_FILES "")
  return()
endif()

file(GLOB man_includes CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/man/include/*.adoc)
set(HANGSCOPE_MAN_FILES)
foreach(page ${HANGSCOPE_MAN_PAGES})
  set(source ${PROJECT_SOURCE_DIR}/docs/man/${page}.1.adoc)
  set(out ${HANGSCOPE_MAN_DIR}/${page}.1.gz)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DASCIIDOCTOR=${HANGSCOPE_ASCIIDOCTOR} -DGZIP=${HANGSCOPE_GZIP}
            -DINPUT=${source} -DOUTPUT=${out} -DVERSION_FILE=${HANGSCOPE_VERSION_FILE}
            -DRULES_DIR=${HANGSCOPE_RULES_DIR} -P ${PROJECT_SOURCE_DIR}/cmake/MakeManPage.cmake
    DEPENDS ${source} ${man_includes} ${HANGSCOPE_VERSION_FILE}
            ${PROJECT_SOURCE_DIR}/cmake/MakeManPage.cmake
    COMMENT "Making the man page ${page}(1)"
    VERBATIM)
  list(APPEND HANGSCOPE_MAN_FILES ${out})
endforeach()
add_custom_target(hangscope_man_pages ALL DEPENDS ${HANGSCOPE_MAN_FILES})
add_dependencies(hangscope_man_pages hangscope_version)
