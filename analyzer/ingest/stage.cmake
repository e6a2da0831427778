# Ingest: the readers of every input format into the model (hangscope/ingest.hpp). Their
# shared parts (readers.hpp, input_parts.hpp, ...) are private to the stage; the tests of
# those parts (tests/unit/ingest_*_test.cpp) include them through its internals target.
hangscope_add_stage(hangscope_ingest INTERNALS SOURCES
  line_reader.cpp
  capture_builder.cpp
  capture_reader.cpp
  proc_stack_reader.cpp
  compressed_source.cpp
  log_prefix.cpp
  task_header.cpp
  kernel_trace.cpp
  kernel_text_anchor.cpp
  kernel_log_reader.cpp
  lockdep_locks.cpp
  crash_reader.cpp
  perf_script_reader.cpp
  perf_script_lines.cpp
  rust_symbols.cpp
  folded_reader.cpp
  detect.cpp
  input_parts.cpp
)
target_link_libraries(hangscope_ingest PUBLIC hangscope_model
  PRIVATE ZLIB::ZLIB PkgConfig::ZSTD Threads::Threads ${HANGSCOPE_ABSL})
