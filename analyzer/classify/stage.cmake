# Classify: stacks into wait groups by the rules (hangscope/classify.hpp): the built-in
# rules embedded at build time, rule files in TOML.
include(${CMAKE_CURRENT_LIST_DIR}/rules.cmake)
hangscope_add_stage(hangscope_classify SOURCES
  patterns.cpp
  rules_toml.cpp
  rule_set.cpp
  ${HANGSCOPE_BUILTIN_RULES_SOURCE}
  compiled_rules.cpp
  normalize.cpp
  classifier.cpp
)
target_link_libraries(hangscope_classify PUBLIC hangscope_model PRIVATE ${HANGSCOPE_TOML})
