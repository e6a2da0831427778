# Graph: the waits-on graph of the classified samples, its chains, deadlocks and verdict
# (hangscope/graph.hpp), with Boost.Graph.
hangscope_add_stage(hangscope_graph SOURCES
  context.cpp
  units.cpp
  devices.cpp
  processes.cpp
  fuse_daemons.cpp
  cause_table.cpp
  causes.cpp
  backing.cpp
  nodes.cpp
  edges.cpp
  chains.cpp
  deadlocks.cpp
  verdict.cpp
  build_graph.cpp
)
target_link_libraries(hangscope_graph PUBLIC hangscope_classify hangscope_model
  PRIVATE Boost::graph ${HANGSCOPE_ABSL})
