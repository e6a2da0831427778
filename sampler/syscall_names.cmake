# Generates the table of system call names of this architecture from the kernel's
# uapi header (Debian's linux-libc-dev), so that a capture names the call a task is
# blocked in ("fsync", not 74). Without the header the table is empty and calls are
# recorded by number only.
set(_unistd "/usr/include/${CMAKE_LIBRARY_ARCHITECTURE}/asm/unistd_64.h")
if(NOT EXISTS "${_unistd}")
  set(_unistd "/usr/include/asm/unistd_64.h")
endif()
set(HANGSCOPE_SYSCALL_ENTRIES "")
if(EXISTS "${_unistd}")
  file(STRINGS "${_unistd}" _lines REGEX "^#define __NR_[a-z0-9_]+ [0-9]+$")
  foreach(_line IN LISTS _lines)
    string(REGEX REPLACE "^#define __NR_([a-z0-9_]+) ([0-9]+)$" "    {\\2, \"\\1\"},\n" _entry "${_line}")
    string(APPEND HANGSCOPE_SYSCALL_ENTRIES "${_entry}")
  endforeach()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_unistd}")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/syscall_names.cpp.in
               ${CMAKE_CURRENT_BINARY_DIR}/generated/syscall_names.cpp @ONLY)
set(HANGSCOPE_SYSCALL_NAMES_CPP ${CMAKE_CURRENT_BINARY_DIR}/generated/syscall_names.cpp)
