# One probe of the stages' layering (docs/stages.md): a file of stage TARGET that
# includes HEADER, compiled with that target's own include directories (INCLUDES, joined
# by "|", less the compiler's own IMPLICIT ones) and nothing else. EXPECT is "compiles"
# (the stage may include it) or "refused": the compiler must then fail because HEADER is
# not found, and for no other reason.
#   cmake -DCXX=... -DTARGET=... -DHEADER=... -DINCLUDES=... -DIMPLICIT=... -DEXPECT=...
#         -DWORK_DIR=... -P probe.cmake
cmake_minimum_required(VERSION 3.25)
foreach(var CXX TARGET HEADER INCLUDES EXPECT WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "probe.cmake: ${var} is not set")
  endif()
endforeach()

string(MAKE_C_IDENTIFIER "${TARGET}_${HEADER}" probe_name)
set(probe "${WORK_DIR}/${probe_name}.cpp")
file(MAKE_DIRECTORY "${WORK_DIR}")
file(WRITE "${probe}" "// A file of ${TARGET} that includes ${HEADER}.\n#include \"${HEADER}\"\n")

string(REPLACE "|" ";" include_dirs "${INCLUDES}")
string(REPLACE "|" ";" implicit_dirs "${IMPLICIT}")
set(include_flags)
foreach(dir IN LISTS include_dirs)
  if(NOT dir IN_LIST implicit_dirs)
    list(APPEND include_flags "-I${dir}")
  endif()
endforeach()
execute_process(
  COMMAND "${CXX}" -std=c++20 -fsyntax-only ${include_flags} "${probe}"
  RESULT_VARIABLE result
  OUTPUT_VARIABLE output
  ERROR_VARIABLE output)

# GCC: "hangscope/ingest.hpp: No such file or directory"; clang: "'...' file not found".
string(REPLACE "." "\\." header_regex "${HEADER}")
set(not_found "(${header_regex}: No such file or directory|'${header_regex}' file not found)")
if(EXPECT STREQUAL "compiles")
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${TARGET} may include ${HEADER}, but the probe does not compile:\n${output}")
  endif()
  message(STATUS "${TARGET} includes ${HEADER}: compiles")
elseif(EXPECT STREQUAL "refused")
  if(result EQUAL 0)
    message(FATAL_ERROR "${TARGET} must not include ${HEADER}, but the probe compiles: "
                        "its include directories reach another stage's headers")
  endif()
  if(NOT output MATCHES "${not_found}")
    message(FATAL_ERROR "the probe of ${TARGET} including ${HEADER} fails, but not for want "
                        "of the header:\n${output}")
  endif()
  message(STATUS "${TARGET} includes ${HEADER}: refused (${CMAKE_MATCH_1})")
else()
  message(FATAL_ERROR "probe.cmake: EXPECT is \"compiles\" or \"refused\", not \"${EXPECT}\"")
endif()
