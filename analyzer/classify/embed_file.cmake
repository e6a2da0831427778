# Embeds a file in the binary as bytes: cmake -DINPUT=... -DOUTPUT=... -DSYMBOL=...
# -DNAMESPACE=... -P embed_file.cmake writes a C++ source defining
#   extern const char SYMBOL[];  extern const size_t SYMBOL##Size;
# The file is written as hexadecimal bytes, so that its text needs no escaping.
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
# About 16 bytes a line, for compilers and people who open the file.
string(REGEX REPLACE "(('[^']*',){16})" "\\1\n  " bytes "${bytes}")
get_filename_component(input_name "${INPUT}" NAME)
file(WRITE "${OUTPUT}.tmp"
"// Generated at build time from ${input_name} by embed_file.cmake: do not edit.
#include <cstddef>

namespace ${NAMESPACE} {

extern const char ${SYMBOL}[] = {
  ${bytes}'\\0'};
extern const size_t ${SYMBOL}Size = ${size};

}  // namespace ${NAMESPACE}
")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
