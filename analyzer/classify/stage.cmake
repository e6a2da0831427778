# Classify: stacks into wait groups by the rules (hangscope/classify.hpp): the built-in
# rules embedded at build time, rule files in TOML, and the kernel map (hangscope/kernel_map.hpp).
include(${CMAKE_CURRENT_LIST_DIR}/rules.cmake)
hangscope_add_stage(hangscope_classify SOURCES
  patterns.cpp
  rules_toml.cpp
  rule_set.cpp
  ${HANGSCOPE_BUILTIN_RULES_SOURCE}
  ${HANGSCOPE_KERNEL_MAP_SOURCE}
  kernel_map.cpp
  compiled_rules.cpp
  normalize.cpp
  classifier.cpp
)
target_link_libraries(hangscope_classify PUBLIC hangscope_model PRIVATE ${HANGSCOPE_TOML} PkgConfig::ZSTD)
