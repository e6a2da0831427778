# Analyses: what the outputs are made of, computed from the classified samples (the
# wait-group summary, the flame tree, the timeline, the context summary) and gathered
# with the waits-on graph by analyze() (hangscope/analysis.hpp).
hangscope_add_stage(hangscope_analyses SOURCES
  group_summary.cpp
  context_summary.cpp
  spinning.cpp
  calm.cpp
  analyze.cpp
  flame_tree.cpp
  timeline.cpp
)
target_link_libraries(hangscope_analyses PUBLIC hangscope_graph hangscope_classify hangscope_model)
