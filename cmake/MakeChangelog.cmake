# The Debian changelog of a native package built from this tree: one entry, for the
# version built, dated by the last commit (so that the same tree makes the same file).
#   cmake -DSOURCE_DIR=... -DVERSION_FILE=version.txt -DMAINTAINER="Name <mail>"
#         -DGZIP=gzip -DOUTPUT=changelog.gz -P MakeChangelog.cmake
file(STRINGS "${VERSION_FILE}" version LIMIT_COUNT 1)
execute_process(COMMAND git log -1 --format=%aD WORKING_DIRECTORY "${SOURCE_DIR}"
                OUTPUT_VARIABLE date OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR date STREQUAL "")
  set(date "Thu, 01 Jan 1970 00:00:00 +0000")
endif()
string(REGEX REPLACE "\\.gz$" "" text "${OUTPUT}")
file(WRITE "${text}"
  "hangscope (${version}) unstable; urgency=medium\n\n"
  "  * Built from the source tree at this version; its history is the\n"
  "    project's git log.\n\n"
  " -- ${MAINTAINER}  ${date}\n")
execute_process(COMMAND "${GZIP}" -9nf "${text}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip failed on ${text}")
endif()
