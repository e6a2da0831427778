// The libunwind release the user-stack reader was compiled against, from its header.
#include <libunwind.h>

#include "hangscope/user_stack.hpp"

namespace hangscope {

namespace {
#define HANGSCOPE_STR2(x) #x
#define HANGSCOPE_STR(x) HANGSCOPE_STR2(x)
constexpr std::string_view kVersion = HANGSCOPE_STR(UNW_VERSION_MAJOR) "." HANGSCOPE_STR(
    UNW_VERSION_MINOR) "." HANGSCOPE_STR(UNW_VERSION_EXTRA);
#undef HANGSCOPE_STR
#undef HANGSCOPE_STR2
}  // namespace

std::string_view unwinder_version() { return kVersion; }

}  // namespace hangscope
