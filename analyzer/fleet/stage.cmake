# Fleet: the hosts of `hangscope watch` read from Prometheus's HTTP API
# (hangscope/fleet.hpp), a source of the model's host series, as ingest is of captures.
# Plain HTTP over Boost.Beast, header-only as watch's server is; nlohmann's JSON.
hangscope_add_stage(hangscope_fleet INTERNALS SOURCES
  http_get.cpp
  prometheus_api.cpp
  prometheus_time.cpp
  fleet_query.cpp
)
target_link_libraries(hangscope_fleet PUBLIC hangscope_model
  PRIVATE Boost::headers nlohmann_json::nlohmann_json)
