# One stage of the pipeline (docs/stages.md), called from the stage's own stage.cmake
# (or CMakeLists.txt): a static library of SOURCES, named relative to that file's folder;
# its public headers, <folder>/include/hangscope/, PUBLIC on it alone; its internal ones,
# beside its sources, PRIVATE. With INTERNALS, an INTERFACE target <target>_internals puts
# the folder (and INTERNAL_DIRS) on the include path of the tests and benchmarks that
# link it, and links the stage. With HANGSCOPE_UNITY_STAGES, the library is compiled as a
# few unity files of up to 8 sources each, which parse the headers once: the sanitized
# builds of CI (scripts/sanitized-tests.sh), which rebuild every stage twice.
function(hangscope_add_stage target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "INTERNALS" "" "SOURCES;INTERNAL_DIRS")
  # In a function, the folder of the file that calls it.
  set(dir ${CMAKE_CURRENT_LIST_DIR})
  set(sources)
  foreach(source IN LISTS arg_SOURCES)
    cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY ${dir})
    list(APPEND sources ${source})
  endforeach()
  add_library(${target} STATIC ${sources})
  set_target_properties(${target} PROPERTIES UNITY_BUILD ${HANGSCOPE_UNITY_STAGES})
  target_include_directories(${target} PUBLIC ${dir}/include PRIVATE ${dir})
  if(arg_INTERNALS)
    add_library(${target}_internals INTERFACE)
    target_include_directories(${target}_internals INTERFACE ${dir} ${arg_INTERNAL_DIRS})
    target_link_libraries(${target}_internals INTERFACE ${target})
  endif()
endfunction()
