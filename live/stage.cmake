# Live: the recent past of the sampler kept in memory (a window of rounds), the triggers
# that look at it, and the engine `watch` and `top` run on; metrics over HTTP.
# The HTTP server is Boost.Beast's, header-only (Boost's headers come with Boost.Graph).
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
  metrics_server.cpp
  watch.cpp
  top_view.cpp
)
# The window's groups are classified and its stretches are the analyses' (public
# headers); a window is read back as a capture and reported in words (private).
target_link_libraries(hangscope_live
  PUBLIC hangscope_sampler hangscope_analyses hangscope_classify hangscope_model
  PRIVATE hangscope_ingest hangscope_render)
target_link_libraries(hangscope_live PRIVATE Boost::headers)
