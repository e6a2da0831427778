# The built-in wait-group rules (builtin.toml), embedded in the binary as bytes at build
# time: HANGSCOPE_BUILTIN_RULES_SOURCE names the generated source, rebuilt when the
# rules change.
set(HANGSCOPE_BUILTIN_RULES ${CMAKE_CURRENT_LIST_DIR}/builtin.toml)
set(HANGSCOPE_BUILTIN_RULES_SOURCE ${CMAKE_CURRENT_BINARY_DIR}/builtin_rules_data.cpp)
add_custom_command(
  OUTPUT ${HANGSCOPE_BUILTIN_RULES_SOURCE}
  COMMAND ${CMAKE_COMMAND} -DINPUT=${HANGSCOPE_BUILTIN_RULES}
          -DOUTPUT=${HANGSCOPE_BUILTIN_RULES_SOURCE} -DSYMBOL=kBuiltinRules
          -DNAMESPACE=hangscope::classify_data -P ${CMAKE_CURRENT_LIST_DIR}/embed_file.cmake
  DEPENDS ${HANGSCOPE_BUILTIN_RULES} ${CMAKE_CURRENT_LIST_DIR}/embed_file.cmake
  COMMENT "Embedding the built-in wait-group rules"
  VERBATIM)
# The kernel map (kernel_map.txt.zst, made by scripts/kernel-map.py from kernel trees),
# embedded compressed: read only when a stack no rule knows is met (hangscope/kernel_map.hpp).
set(HANGSCOPE_KERNEL_MAP ${CMAKE_CURRENT_LIST_DIR}/kernel_map.txt.zst)
set(HANGSCOPE_KERNEL_MAP_SOURCE ${CMAKE_CURRENT_BINARY_DIR}/kernel_map_data.cpp)
add_custom_command(
  OUTPUT ${HANGSCOPE_KERNEL_MAP_SOURCE}
  COMMAND ${CMAKE_COMMAND} -DINPUT=${HANGSCOPE_KERNEL_MAP}
          -DOUTPUT=${HANGSCOPE_KERNEL_MAP_SOURCE} -DSYMBOL=kKernelMap
          -DNAMESPACE=hangscope::classify_data -P ${CMAKE_CURRENT_LIST_DIR}/embed_file.cmake
  DEPENDS ${HANGSCOPE_KERNEL_MAP} ${CMAKE_CURRENT_LIST_DIR}/embed_file.cmake
  COMMENT "Embedding the kernel map"
  VERBATIM)
