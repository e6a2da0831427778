# Files of the classifier embedded in the binary as bytes at build time, each rebuilt when
# its file changes: the built-in wait-group rules (builtin.toml) and the kernel map
# (kernel_map.txt.zst, made by scripts/kernel-map.py from kernel trees), embedded
# compressed and read only when a stack no rule knows is met (hangscope/kernel_map.hpp).
function(hangscope_embed_classify_file input output symbol comment)
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${input} -DOUTPUT=${output} -DSYMBOL=${symbol}
            -DNAMESPACE=hangscope::classify_data
            -P ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/embed_file.cmake
    DEPENDS ${input} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/embed_file.cmake
    COMMENT "${comment}"
    VERBATIM)
endfunction()

set(HANGSCOPE_BUILTIN_RULES ${CMAKE_CURRENT_LIST_DIR}/builtin.toml)
set(HANGSCOPE_BUILTIN_RULES_SOURCE ${CMAKE_CURRENT_BINARY_DIR}/builtin_rules_data.cpp)
hangscope_embed_classify_file(${HANGSCOPE_BUILTIN_RULES} ${HANGSCOPE_BUILTIN_RULES_SOURCE}
  kBuiltinRules "Embedding the built-in wait-group rules")
set(HANGSCOPE_KERNEL_MAP ${CMAKE_CURRENT_LIST_DIR}/kernel_map.txt.zst)
set(HANGSCOPE_KERNEL_MAP_SOURCE ${CMAKE_CURRENT_BINARY_DIR}/kernel_map_data.cpp)
hangscope_embed_classify_file(${HANGSCOPE_KERNEL_MAP} ${HANGSCOPE_KERNEL_MAP_SOURCE}
  kKernelMap "Embedding the kernel map")
