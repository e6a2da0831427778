# The Debian package, made by CPack: `cpack -G DEB` in the build directory, after the
# build, writes hangscope_<version>_<arch>.deb (tests/install/package_test.sh builds,
# checks and installs it). Dependencies come from dpkg-shlibdeps, the version from
# `git describe` at build time (version.txt, read when cpack runs), the copyright from
# packaging/copyright; lintian accepts it without errors.
set(HANGSCOPE_MAINTAINER "hangscope maintainers <maintainers@hangscope.invalid>" CACHE STRING
    "The Maintainer of the Debian package")

# A native package's changelog, which Debian requires: one entry for the version built.
set(HANGSCOPE_CHANGELOG ${PROJECT_BINARY_DIR}/packaging/changelog.gz)
find_program(HANGSCOPE_GZIP gzip)
add_custom_command(
  OUTPUT ${HANGSCOPE_CHANGELOG}
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DVERSION_FILE=${HANGSCOPE_VERSION_FILE}
          -DMAINTAINER=${HANGSCOPE_MAINTAINER} -DGZIP=${HANGSCOPE_GZIP} -DOUTPUT=${HANGSCOPE_CHANGELOG}
          -P ${PROJECT_SOURCE_DIR}/cmake/MakeChangelog.cmake
  DEPENDS ${HANGSCOPE_VERSION_FILE} ${PROJECT_SOURCE_DIR}/cmake/MakeChangelog.cmake
  COMMENT "Writing the package changelog"
  VERBATIM)
add_custom_target(hangscope_changelog ALL DEPENDS ${HANGSCOPE_CHANGELOG})
add_dependencies(hangscope_changelog hangscope_version)
install(FILES ${HANGSCOPE_CHANGELOG} DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hangscope)
set(CPACK_PACKAGE_VENDOR hangscope)
set(CPACK_PACKAGE_CONTACT "${HANGSCOPE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "which tasks are blocked, on what, and who they wait for")
# The extended description; CPack puts the summary above it and indents it.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "hangscope is a stack-sampling contention analyzer for Linux kernels. It
polls the kernel stacks of blocked threads, puts them into wait groups
(jbd2 log space, fsync's wait for a commit, the rename lock, ...) and
builds the waits-on graph whose chains end at what everyone waits for.

It reads its own captures and the dumps people already have (kernel logs,
crash, perf script, folded stacks), compares captures of two kernels, and
writes text, flamegraphs, HTML, speedscope, pprof, Graphviz DOT and JSON.")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# dot lays out the HTML report's graphs when it is installed (--graph-layout auto).
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "graphviz")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
# Directories 0755 whatever the umask of the one who packages.
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
# The version is known only once built: read when cpack runs.
configure_file(${PROJECT_SOURCE_DIR}/cmake/CPackVersion.cmake.in
               ${PROJECT_BINARY_DIR}/CPackVersion.cmake @ONLY)
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_BINARY_DIR}/CPackVersion.cmake)
include(CPack)
