// Frame normalisation for matching: functions renamed across kernel versions are folded
// into one name (wait_on_page_writeback -> folio_wait_writeback), and frames are sorted
// into those that carry no meaning for classification. /proc/<pid>/stack already hides
// the scheduler and lock text sections; kernel dumps (hung_task, sysrq-w, crash, perf)
// show them, so that one rule set works on both only if these frames are looked through.
// The lists themselves are data, in the [frames] and [aliases] tables of the rules.
#include "compiled_rules.hpp"
#include "hangscope/frame_text.hpp"

namespace hangscope {

namespace classify_impl {

// Readers fold compiler suffixes already; a frame interned by other means still gets
// "__mutex_lock.constprop.0" folded to "__mutex_lock" here.
std::string_view CompiledRules::canonical(std::string_view function) const {
  function = fold_symbol_suffixes(function);
  if (aliases_.empty()) return function;
  auto it = aliases_.find(function);
  return it == aliases_.end() ? function : it->second;
}

uint8_t CompiledRules::frame_class(std::string_view canonical) const {
  uint8_t c = 0;
  classes_.for_each_match(canonical, [&](uint8_t bit) { c |= bit; });
  return c;
}

}  // namespace classify_impl

namespace {

bool has_class(const classify_impl::CompiledRules& c, std::string_view function, uint8_t bit) {
  return (c.frame_class(c.canonical(function)) & bit) != 0;
}

}  // namespace

FrameClasses::FrameClasses(const RuleSet& rules)
    : compiled_(std::make_unique<const classify_impl::CompiledRules>(rules)) {}
FrameClasses::~FrameClasses() = default;

bool FrameClasses::is_scheduler_frame(std::string_view f) const {
  return has_class(*compiled_, f, classify_impl::kScheduler);
}
bool FrameClasses::is_lock_primitive(std::string_view f) const {
  return has_class(*compiled_, f, classify_impl::kLock);
}
bool FrameClasses::is_entry_frame(std::string_view f) const {
  return has_class(*compiled_, f, classify_impl::kEntry);
}
std::string_view FrameClasses::canonical_function(std::string_view f) const {
  return compiled_->canonical(f);
}

const FrameClasses& builtin_frame_classes() {
  static const FrameClasses classes(builtin_rules());
  return classes;
}
bool is_scheduler_frame(std::string_view f) {
  return builtin_frame_classes().is_scheduler_frame(f);
}
bool is_lock_primitive(std::string_view f) { return builtin_frame_classes().is_lock_primitive(f); }
bool is_entry_frame(std::string_view f) { return builtin_frame_classes().is_entry_frame(f); }
std::string_view canonical_function(std::string_view f) {
  return builtin_frame_classes().canonical_function(f);
}

}  // namespace hangscope
