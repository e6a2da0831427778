# The command line: every command on top of the stages, and top's rows as text (a
# library of their own for its terminal view, its batch frames and their tests).
add_library(hangscope_top_text STATIC ${CMAKE_CURRENT_LIST_DIR}/top/top_text.cpp)
target_include_directories(hangscope_top_text PUBLIC ${CMAKE_CURRENT_LIST_DIR}/top)
target_link_libraries(hangscope_top_text PUBLIC hangscope_live hangscope_classify)

include(${PROJECT_SOURCE_DIR}/cmake/Version.cmake)
# The rule files read by default (docs/rules.md), besides the built-in rules.
set(HANGSCOPE_RULES_DIR "/etc/hangscope/rules.d" CACHE PATH
    "Directory of wait-group rule files hangscope reads by default")

add_executable(hangscope
  ${CMAKE_CURRENT_LIST_DIR}/main.cpp
  ${CMAKE_CURRENT_LIST_DIR}/record.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stop_signals.cpp
  ${CMAKE_CURRENT_LIST_DIR}/watch.cpp
  ${CMAKE_CURRENT_LIST_DIR}/top/top.cpp
  ${CMAKE_CURRENT_LIST_DIR}/top/terminal_view.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/diff.cpp
  ${CMAKE_CURRENT_LIST_DIR}/batch_memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/progress.cpp
  ${CMAKE_CURRENT_LIST_DIR}/output.cpp
  ${CMAKE_CURRENT_LIST_DIR}/input_options.cpp
  ${CMAKE_CURRENT_LIST_DIR}/output_options.cpp
  ${CMAKE_CURRENT_LIST_DIR}/suspects_options.cpp
  ${CMAKE_CURRENT_LIST_DIR}/version.cpp
  ${CMAKE_CURRENT_LIST_DIR}/features.cpp
  ${CMAKE_CURRENT_LIST_DIR}/completion_command.cpp
  ${CMAKE_CURRENT_LIST_DIR}/completion_spec.cpp
  ${CMAKE_CURRENT_LIST_DIR}/completion_bash.cpp
  ${CMAKE_CURRENT_LIST_DIR}/completion_zsh.cpp
  ${HANGSCOPE_VERSION_CPP}
)
target_link_libraries(hangscope PRIVATE hangscope_top_text hangscope_live hangscope_sampler
  hangscope_analyzer hangscope_user_stack CLI11::CLI11)
# hangscope top's full-screen view: ncurses, wide (UTF-8 sparklines).
if(HANGSCOPE_STATIC)
  # FindCurses names no archive order that links statically; pkg-config --static does.
  pkg_check_modules(NCURSESW REQUIRED IMPORTED_TARGET ncursesw)
  hangscope_pkg_link(hangscope PRIVATE NCURSESW)
else()
  set(CURSES_NEED_WIDE TRUE)
  find_package(Curses REQUIRED)
  target_include_directories(hangscope PRIVATE ${CURSES_INCLUDE_DIRS})
  target_link_libraries(hangscope PRIVATE ${CURSES_LIBRARIES})
endif()
target_compile_definitions(hangscope PRIVATE HANGSCOPE_RULES_DIR="${HANGSCOPE_RULES_DIR}")
add_dependencies(hangscope hangscope_version)
