# Render: the analyses and diffs put into words and pictures, one file per format
# (hangscope/render.hpp, hangscope/diff_render.hpp). The words, the SVG and XML helpers
# and the graph drawing (graph_picture.hpp, renderers.hpp, ...) are private to it; the
# tests of the words and pictures include them through its internals target.
hangscope_add_stage(hangscope_render INTERNALS SOURCES
  renderers.cpp
  text.cpp
  task_label.cpp
  graph_words.cpp
  unit_words.cpp
  context_words.cpp
  input_warnings.cpp
  folded.cpp
  diff_renderers.cpp
  diff_text.cpp
  diff_json.cpp
  diff_words.cpp
  diff_svg.cpp
  diff_html.cpp
  xml_text.cpp
  palette.cpp
  flame_svg.cpp
  svg.cpp
  timeline_chart.cpp
  graph_picture.cpp
  graph_layered.cpp
  graph_dot.cpp
  html.cpp
  speedscope.cpp
  pprof.cpp
  dot.cpp
  json.cpp
  verdict_words.cpp
  suspects_words.cpp
  suspects_text.cpp
  suspects_json.cpp
  suspects_html.cpp
)
target_link_libraries(hangscope_render PUBLIC hangscope_analyses hangscope_diff hangscope_suspects
  hangscope_model)
# Embedded scripts and style sheets, pprof's profile.proto, zlib and JSON.
include(${PROJECT_SOURCE_DIR}/cmake/Pictures.cmake)
