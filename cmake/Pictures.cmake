# What the picture and export renderers need beyond the rest of the render stage: their embedded
# scripts and style sheets, pprof's profile.proto, zlib for gzip, and a JSON writer.
find_package(nlohmann_json 3.10 REQUIRED)
find_package(Protobuf REQUIRED)
find_package(ZLIB REQUIRED)

# Scripts and style sheets, embedded at build time (cmake/EmbedAsset.cmake): they are
# edited as plain .js and .css files, never as escaped C++ strings.
set(hangscope_assets flamegraph.js flamegraph.css report.css)
set(hangscope_asset_sources)
foreach(asset ${hangscope_assets})
  string(MAKE_C_IDENTIFIER ${asset} asset_name)
  set(asset_in ${PROJECT_SOURCE_DIR}/analyzer/render/assets/${asset})
  set(asset_out ${CMAKE_CURRENT_BINARY_DIR}/assets/${asset_name}.cpp)
  add_custom_command(
    OUTPUT ${asset_out}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${asset_in} -DOUTPUT=${asset_out} -DNAME=${asset_name}
            -P ${PROJECT_SOURCE_DIR}/cmake/EmbedAsset.cmake
    DEPENDS ${asset_in} ${PROJECT_SOURCE_DIR}/cmake/EmbedAsset.cmake
    COMMENT "Embedding ${asset}")
  list(APPEND hangscope_asset_sources ${asset_out})
endforeach()
target_sources(hangscope_render PRIVATE ${hangscope_asset_sources})

# pprof's profile.proto, compiled with Debian's protoc into a library of its own (the
# unit tests read profiles back through the same generated classes).
add_subdirectory(analyzer/render/proto)

target_link_libraries(hangscope_render PRIVATE hangscope_pprof_proto nlohmann_json::nlohmann_json
                      ZLIB::ZLIB)
