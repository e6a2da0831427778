# Diff: two sets of inputs compared, group by group and frame by frame, with the
# bootstrap's confidence (hangscope/diff.hpp, hangscope/flame_compare.hpp).
hangscope_add_stage(hangscope_diff INTERNALS SOURCES
  frame_subsystem.cpp
  stack_matching.cpp
  bootstrap.cpp
  block_length.cpp
  resamples.cpp
  moderated_variance.cpp
  tables.cpp
  side_units.cpp
  holm.cpp
  growth_check.cpp
  diff.cpp
  fleet_diff.cpp
  flame_compare.cpp
)
target_link_libraries(hangscope_diff PUBLIC hangscope_analyses hangscope_classify hangscope_model
  PRIVATE Boost::boost ${HANGSCOPE_ABSL})
