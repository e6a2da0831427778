# Makes one man page: AsciiDoc -> troff (asciidoctor) -> gzip, at build time:
#   cmake -DASCIIDOCTOR=... -DGZIP=... -DINPUT=page.1.adoc -DOUTPUT=page.1.gz
#         -DVERSION_FILE=version.txt -DRULES_DIR=/etc/hangscope/rules.d -P MakeManPage.cmake
# Warnings of asciidoctor fail the build, so that a page never ships half-rendered.
file(STRINGS "${VERSION_FILE}" version LIMIT_COUNT 1)
string(REGEX REPLACE "\\.gz$" "" troff "${OUTPUT}")
execute_process(
  COMMAND "${ASCIIDOCTOR}" --backend manpage --failure-level WARN
          --attribute "hangscope-version=${version}" --attribute "rules-dir=${RULES_DIR}"
          --out-file "${troff}" "${INPUT}"
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "asciidoctor failed on ${INPUT}")
endif()
# -n: no name or time stamp in the header, so that the same page makes the same bytes.
execute_process(COMMAND "${GZIP}" -9nf "${troff}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip failed on ${troff}")
endif()
