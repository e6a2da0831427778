# The model: interned frames, stacks and samples, the records of a capture, and the text
# helpers every stage uses. It includes no other stage; every stage links it.
hangscope_add_stage(hangscope_model SOURCES
  string_table.cpp
  stack_table.cpp
  capture.cpp
  frame_text.cpp
  capture_format.cpp
  capture_fields.cpp
  parallel.cpp
  bulk_memory.cpp
  workers.cpp
)
target_link_libraries(hangscope_model PUBLIC ${HANGSCOPE_FMT} ${HANGSCOPE_ABSL} Threads::Threads)
