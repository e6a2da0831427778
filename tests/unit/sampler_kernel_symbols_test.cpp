// The kallsyms symbolizer of the BPF source and of the on-CPU samples
// (sampler/kernel_symbols.hpp): the frame text of a return address must be
// /proc/<pid>/stack's, byte for byte; an exact address is named as %pS names it.
#include "kernel_symbols.hpp"

#include <gtest/gtest.h>

#include <charconv>
#include <sstream>

#include "support/text_file.hpp"

namespace hangscope::sampler {
namespace {

const std::string kDir = std::string(HANGSCOPE_FIXTURES) + "/kallsyms/";

std::string frame(const KernelSymbols& s, uint64_t address) {
  std::string out;
  s.append_frame(address, out);
  return out;
}

uint64_t hex(std::string_view s) {
  uint64_t v = 0;
  if (s.starts_with("0x")) s.remove_prefix(2);
  std::from_chars(s.data(), s.data() + s.size(), v, 16);
  return v;
}

// Every frame of the real stacks (fixtures/kallsyms/proc-stacks-6.18.txt) comes back as
// the kernel printed it from its return address (the function's address plus the
// offset), with the size the kernel gave: the symbol's end found as the kernel finds it.
TEST(KernelSymbols, RealFramesComeBackAsProcStackPrintsThem) {
  const std::string kallsyms = testing::slurp(kDir + "kallsyms-6.18.excerpt");
  ASSERT_FALSE(kallsyms.empty());
  KernelSymbols symbols(kallsyms);
  EXPECT_TRUE(symbols.addresses_known());
  std::istringstream frames(testing::slurp(kDir + "proc-stacks-6.18.txt"));
  size_t checked = 0;
  for (std::string line; std::getline(frames, line);) {
    ASSERT_TRUE(line.starts_with("[<0>] ")) << line;
    const std::string text = line.substr(6);
    const size_t plus = text.find('+'), slash = text.find('/');
    const std::string name = text.substr(0, plus);
    const uint64_t offset = hex(text.substr(plus + 1, slash - plus - 1));
    // The functions of that name (static ones may share it): one of them gives the text.
    std::vector<std::string> got;
    std::istringstream all(kallsyms);
    for (std::string k; std::getline(all, k);) {
      std::istringstream f(k);
      std::string addr, type, n;
      f >> addr >> type >> n;
      if (n == name) got.push_back(frame(symbols, hex(addr) + offset));
    }
    EXPECT_NE(std::find(got.begin(), got.end(), text), got.end())
        << text << " came back as " << (got.empty() ? "nothing" : got[0]);
    ++checked;
  }
  EXPECT_EQ(checked, 54u);
}

TEST(KernelSymbols, ExactFramesOfTheRealExcerpt) {
  KernelSymbols symbols(testing::slurp(kDir + "kallsyms-6.18.excerpt"));
  // ffffffff816bb820 T ksys_read, 0xe0 long (proc-stacks-6.18.txt: ksys_read+0x66/0xe0).
  auto read = symbols.function("ksys_read");
  ASSERT_TRUE(read);
  EXPECT_EQ(read->end - read->start, 0xe0u);
  EXPECT_EQ(frame(symbols, read->start + 0x66), "ksys_read+0x66/0xe0");
  // A return address just past the function's end still names it: the kernel looks up
  // the address before it (a call as the last instruction).
  EXPECT_EQ(frame(symbols, read->end), "ksys_read+0xe0/0xe0");
}

TEST(KernelSymbols, ModulesAliasesAndUnknownAddresses) {
  KernelSymbols s(testing::slurp(kDir + "modules.written.kallsyms"));
  EXPECT_EQ(s.size(), 13u);
  EXPECT_EQ(frame(s, 0xffffffff81000110), "core_first+0x10/0x80");
  // Aliases: the first listed.
  EXPECT_EQ(frame(s, 0xffffffff810001a0), "core_alias_listed_first+0x20/0x80");
  // A module's function ends at the next symbol of the same module, whatever lies
  // between (ext4's functions sit between fuse's here).
  EXPECT_EQ(frame(s, 0xffffffffc0a00400), "request_wait_answer+0xc0/0x2c0 [fuse]");
  EXPECT_EQ(frame(s, 0xffffffffc0a00680), "fuse_simple_request+0x80/0x200 [fuse]");
  EXPECT_EQ(frame(s, 0xffffffffc0b00010), "ext4_sync_file+0x10/0x400 [ext4]");
  // Past a module's last symbol its end is not known: the address, as the kernel prints
  // an address it cannot name.
  EXPECT_EQ(frame(s, 0xffffffffc0b00500), "0xffffffffc0b00500");
  EXPECT_EQ(frame(s, 0x1000), "0x1000");
  auto wait = s.function("request_wait_answer");
  ASSERT_TRUE(wait);
  EXPECT_EQ(wait->start, 0xffffffffc0a00340u);
  EXPECT_EQ(wait->end, 0xffffffffc0a00600u);
  EXPECT_FALSE(s.function("no_such_function"));
}

TEST(KernelSymbols, HiddenAddressesAreSaid) {
  KernelSymbols s("0000000000000000 T _text\n0000000000000000 T ksys_read\n");
  EXPECT_FALSE(s.addresses_known());
}

}  // namespace
}  // namespace hangscope::sampler

namespace hangscope::sampler {
namespace {

std::string exact(const KernelSymbols& s, uint64_t address) {
  std::string out;
  s.append_exact_frame(address, out);
  return out;
}

// The first frame of an on-CPU sample is the instruction it interrupted: looked up as it
// is, so that a function's first instruction is that function's (+0x0, as the kernel's
// %#lx prints zero), where a return address there would be the caller's.
TEST(KernelSymbols, ExactAddressesAreTheirOwnFunctions) {
  KernelSymbols s(testing::slurp(kDir + "modules.written.kallsyms"));
  EXPECT_EQ(exact(s, 0xffffffff81000100), "core_first+0x0/0x80");
  EXPECT_EQ(frame(s, 0xffffffff81000100), "_text+0x100/0x100");
  EXPECT_EQ(exact(s, 0xffffffff81000180), "core_alias_listed_first+0x0/0x80");
  EXPECT_EQ(exact(s, 0xffffffff8100017f), "core_first+0x7f/0x80");
  EXPECT_EQ(exact(s, 0xffffffffc0a00340), "request_wait_answer+0x0/0x2c0 [fuse]");
  EXPECT_EQ(exact(s, 0xffffffffc0b00500), "0xffffffffc0b00500");
}

}  // namespace
}  // namespace hangscope::sampler
