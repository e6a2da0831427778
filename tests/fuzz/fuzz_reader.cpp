// libFuzzer target for one reader: the environment's HANGSCOPE_FUZZ_FORMAT names it (unset
// or "detect": format detection). Any input must end in a model or in an InputError, never
// in a crash, a sanitizer report or unbounded memory. The model is then analysed, so that
// what a reader produces is also something every later stage accepts.
// HANGSCOPE_FUZZ_LIST=1 prints the readers' names, one a line, and exits: run-fuzz.sh
// fuzzes each of them, so that the list of readers is the one of ingest (reader_names()).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

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

std::string format;  // "" detection

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* list = std::getenv("HANGSCOPE_FUZZ_LIST"); list && std::strcmp(list, "1") == 0) {
    for (const std::string& name : hangscope::reader_names()) std::printf("%s\n", name.c_str());
    std::exit(0);
  }
  const char* f = std::getenv("HANGSCOPE_FUZZ_FORMAT");
  format = f && std::strcmp(f, "detect") != 0 ? f : "";
  if (!format.empty() && !hangscope::find_reader(format)) {
    std::fprintf(stderr, "fuzz_reader: no reader '%s'\n", format.c_str());
    std::exit(1);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hangscope::Capture capture;
  try {
    hangscope::read_input(std::make_unique<MemorySource>(data, size), "fuzz", format, capture);
  } catch (const hangscope::InputError&) {
    return 0;
  }
  hangscope::Analysis a = hangscope::analyze(capture);
  (void)a;
  return 0;
}
