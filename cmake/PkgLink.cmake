# Links a library found by pkg_check_modules(PREFIX IMPORTED_TARGET ...): its imported
# target, or in a static build (HANGSCOPE_STATIC) what `pkg-config --static` says, since
# an imported target names the shared objects and a -static link needs the archives and
# what they use in turn (libunwind's liblzma, libbpf's libelf).
function(hangscope_pkg_link target scope prefix)
  if(HANGSCOPE_STATIC)
    target_include_directories(${target} ${scope} ${${prefix}_STATIC_INCLUDE_DIRS})
    target_link_libraries(${target} ${scope} ${${prefix}_STATIC_LDFLAGS})
  else()
    target_link_libraries(${target} ${scope} PkgConfig::${prefix})
  endif()
endfunction()
