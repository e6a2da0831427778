# cmake -DPROGRAM=hangscope -DBASH=out/hangscope -DZSH=out/_hangscope -P WriteCompletion.cmake
foreach(shell BASH ZSH)
  string(TOLOWER ${shell} name)
  # Only Ninja makes the folders of a command's outputs: make it here, for every generator.
  get_filename_component(dir "${${shell}}" DIRECTORY)
  file(MAKE_DIRECTORY "${dir}")
  execute_process(COMMAND "${PROGRAM}" completion ${name} OUTPUT_FILE "${${shell}}"
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    file(REMOVE "${${shell}}")
    message(FATAL_ERROR "${PROGRAM} completion ${name} failed")
  endif()
endforeach()
