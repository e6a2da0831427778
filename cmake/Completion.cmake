# Shell completion, written by the program itself from its command-line definitions
# (`hangscope completion bash|zsh`, cli/completion*.cpp) once it is built.
set(HANGSCOPE_BASH_COMPLETION ${PROJECT_BINARY_DIR}/completion/hangscope)
set(HANGSCOPE_ZSH_COMPLETION ${PROJECT_BINARY_DIR}/completion/_hangscope)
add_custom_command(
  OUTPUT ${HANGSCOPE_BASH_COMPLETION} ${HANGSCOPE_ZSH_COMPLETION}
  COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:hangscope> -DBASH=${HANGSCOPE_BASH_COMPLETION}
          -DZSH=${HANGSCOPE_ZSH_COMPLETION} -P ${PROJECT_SOURCE_DIR}/cmake/WriteCompletion.cmake
  DEPENDS hangscope ${PROJECT_SOURCE_DIR}/cmake/WriteCompletion.cmake
  COMMENT "Writing the bash and zsh completion"
  VERBATIM)
add_custom_target(hangscope_completion ALL
                  DEPENDS ${HANGSCOPE_BASH_COMPLETION} ${HANGSCOPE_ZSH_COMPLETION})
