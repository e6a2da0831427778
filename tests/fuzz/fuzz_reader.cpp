// libFuzzer target for one reader (HANGSCOPE_FUZZ_FORMAT names it; "" = detection): any
// input must end in a model or in an InputError, never in a crash, a sanitizer report or
// unbounded memory. The model is then analysed, so that what a reader produces is also
// something every later stage accepts.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hangscope/analysis.hpp"
#include "hangscope/ingest.hpp"

namespace {

class MemorySource final : public hangscope::ByteSource {
 public:
  MemorySource(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  size_t read(char* buf, size_t n) override {
    size_t k = std::min(n, size_ - pos_);
    if (k) std::memcpy(buf, data_ + pos_, k);
    pos_ += k;
    return k;
  }

 private:
  const uint8_t* data_;
  size_t size_, pos_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hangscope::Capture capture;
  try {
    hangscope::read_input(std::make_unique<MemorySource>(data, size), "fuzz",
                          HANGSCOPE_FUZZ_FORMAT, capture);
  } catch (const hangscope::InputError&) {
    return 0;
  }
  hangscope::Analysis a = hangscope::analyze(capture);
  (void)a;
  return 0;
}
