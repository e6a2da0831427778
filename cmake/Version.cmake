# The version, from `git describe`, written at every build (cmake/WriteVersion.cmake):
# HANGSCOPE_VERSION_CPP for the program, HANGSCOPE_VERSION_FILE (the bare version) for
# the package and the man pages. A commit after configuring changes the version of the
# next build; only what depends on it is rebuilt.
set(HANGSCOPE_VERSION_CPP ${PROJECT_BINARY_DIR}/generated/version.cpp)
set(HANGSCOPE_VERSION_FILE ${PROJECT_BINARY_DIR}/version.txt)
add_custom_target(hangscope_version ALL
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DFALLBACK=${PROJECT_VERSION}
          -DCPP=${HANGSCOPE_VERSION_CPP} -DTEXT=${HANGSCOPE_VERSION_FILE}
          -P ${PROJECT_SOURCE_DIR}/cmake/WriteVersion.cmake
  BYPRODUCTS ${HANGSCOPE_VERSION_CPP} ${HANGSCOPE_VERSION_FILE}
  VERBATIM)
