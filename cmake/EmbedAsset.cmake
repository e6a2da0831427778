# Turns a text asset (a script, a style sheet) into a C++ source file defining
#   const std::string_view hangscope::render::assets::<NAME>
# so that the renderers embed it without hand-escaping it into a string literal.
# Run at build time:  cmake -DINPUT=file.js -DOUTPUT=file.cpp -DNAME=flamegraph_js -P EmbedAsset.cmake
if(NOT INPUT OR NOT OUTPUT OR NOT NAME)
  message(FATAL_ERROR "EmbedAsset.cmake needs INPUT, OUTPUT and NAME")
endif()
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
# Two hex digits per byte -> "0x..," with a line break every 16 bytes.
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n    " bytes "${bytes}")
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT} by cmake/EmbedAsset.cmake. Do not edit.\n"
  "#include <string_view>\n\n"
  "namespace hangscope::render::assets {\n\n"
  "namespace {\nconst char k_${NAME}[] = {\n    ${bytes}0x00};\n}  // namespace\n\n"
  "extern const std::string_view ${NAME}(k_${NAME}, ${size});\n\n"
  "}  // namespace hangscope::render::assets\n")
# Only touch the output when it changed, so that an unchanged asset rebuilds nothing.
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
