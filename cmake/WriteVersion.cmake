# Writes the version of the source tree, from `git describe`, at every build:
#   cmake -DSOURCE_DIR=... -DFALLBACK=0.1.0 -DCPP=version.cpp -DTEXT=version.txt -P WriteVersion.cmake
# CPP defines hangscope::cli::kVersion for the program; TEXT holds the bare version for
# the package (cmake/Package.cmake) and the man pages. Both are rewritten only when the
# version changed, so that an unchanged tree rebuilds nothing.
#
# Versions sort as Debian's do:
#   at a tag v0.2.0              0.2.0
#   3 commits after it           0.2.0+3.g1a2b3c4
#   before the first tag         0.1.0~129.g32ec7a1   (FALLBACK, the project's version,
#                                                      ~ sorts before its release)
#   with uncommitted changes     ... .dirty
#   no git (a source tarball)    FALLBACK
foreach(var SOURCE_DIR FALLBACK CPP TEXT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "WriteVersion.cmake needs ${var}")
  endif()
endforeach()

function(git out)
  execute_process(COMMAND git ${ARGN} WORKING_DIRECTORY "${SOURCE_DIR}"
                  OUTPUT_VARIABLE text RESULT_VARIABLE rc ERROR_QUIET
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(rc EQUAL 0)
    set(${out} "${text}" PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

set(version "${FALLBACK}")
git(described describe --tags --long --dirty --abbrev=7 --match "v[0-9]*")
if(described MATCHES "^v([0-9][0-9A-Za-z.]*)-([0-9]+)-g([0-9a-f]+)(-dirty)?$")
  set(version "${CMAKE_MATCH_1}")
  if(NOT CMAKE_MATCH_2 EQUAL 0)
    string(APPEND version "+${CMAKE_MATCH_2}.g${CMAKE_MATCH_3}")
  endif()
  set(dirty "${CMAKE_MATCH_4}")
else()
  git(count rev-list --count HEAD)
  git(described describe --always --dirty --abbrev=7)
  if(count MATCHES "^[0-9]+$" AND described MATCHES "^([0-9a-f]+)(-dirty)?$")
    set(version "${FALLBACK}~${count}.g${CMAKE_MATCH_1}")
    set(dirty "${CMAKE_MATCH_2}")
  endif()
endif()
if(dirty)
  string(APPEND version ".dirty")
endif()

file(WRITE "${CPP}.tmp"
  "// Generated at build time by cmake/WriteVersion.cmake: do not edit.\n"
  "namespace hangscope::cli {\n"
  "extern const char kVersion[];\n"
  "const char kVersion[] = \"${version}\";\n"
  "}  // namespace hangscope::cli\n")
file(COPY_FILE "${CPP}.tmp" "${CPP}" ONLY_IF_DIFFERENT)
file(REMOVE "${CPP}.tmp")
file(WRITE "${TEXT}.tmp" "${version}\n")
file(COPY_FILE "${TEXT}.tmp" "${TEXT}" ONLY_IF_DIFFERENT)
file(REMOVE "${TEXT}.tmp")
