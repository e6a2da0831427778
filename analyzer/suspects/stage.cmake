# Suspects: the changes of a window of kernel history (a git range, or two source trees)
# that touch the frames of the groups that grew, ranked by the blocked threads those
# frames explain (hangscope/suspects.hpp). It reads kernel trees through git and the file
# system, and keeps an index of each tree's definitions in a cache directory.
find_path(HANGSCOPE_DTL_INCLUDE dtl/dtl.hpp REQUIRED)
hangscope_add_stage(hangscope_suspects INTERNALS SOURCES
  weighted_frames.cpp
  definitions.cpp
  git_process.cpp
  kernel_tree.cpp
  definition_index.cpp
  resolve_frames.cpp
  ranking.cpp
  git_log.cpp
  git_changes.cpp
  unified_diff.cpp
  tree_changes.cpp
  suspects.cpp
)
target_include_directories(hangscope_suspects SYSTEM PRIVATE ${HANGSCOPE_DTL_INCLUDE})
target_link_libraries(hangscope_suspects PUBLIC hangscope_diff hangscope_analyses
  hangscope_classify hangscope_model PRIVATE ${HANGSCOPE_FMT} Threads::Threads)
