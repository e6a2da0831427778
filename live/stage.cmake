# Live: the recent past of the sampler kept in memory (a window of rounds), the triggers
# that look at it, and the engine `watch` and `top` run on; metrics over HTTP.
# The static build leaves the HTTP server out: Debian ships cpp-httplib as a shared
# object only.
if(HANGSCOPE_STATIC)
  set(HANGSCOPE_METRICS_SERVER ${CMAKE_CURRENT_LIST_DIR}/metrics_server_unbuilt.cpp)
else()
  pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)
  set(HANGSCOPE_METRICS_SERVER ${CMAKE_CURRENT_LIST_DIR}/metrics_server.cpp)
endif()
hangscope_add_stage(hangscope_live SOURCES
  round_window.cpp
  window_groups.cpp
  window_capture.cpp
  triggers.cpp
  live_engine.cpp
  kmsg_reader.cpp
  capture_dir.cpp
  prometheus_text.cpp
  listen_address.cpp
  ${HANGSCOPE_METRICS_SERVER}
  watch.cpp
  top_view.cpp
)
# The window's groups are classified and its stretches are the analyses' (public
# headers); a window is read back as a capture and reported in words (private).
target_link_libraries(hangscope_live
  PUBLIC hangscope_sampler hangscope_analyses hangscope_classify hangscope_model
  PRIVATE hangscope_ingest hangscope_render)
if(NOT HANGSCOPE_STATIC)
  target_link_libraries(hangscope_live PRIVATE PkgConfig::HTTPLIB)
endif()
