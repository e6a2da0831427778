// The user-stack unwinder's readers: /proc/<pid>/maps and /syscall text, ELF images
// (load bias, build id, symbols), the binary cache, and memory reads of a target,
// checked against what the dynamic loader says of this very test process.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "binary_cache.hpp"
#include "elf_image.hpp"
#include "proc_files.hpp"
#include "proc_maps.hpp"
#include "support/temp_dir.hpp"
#include "target_memory.hpp"

using namespace hangscope::user_stack;

extern "C" __attribute__((noinline)) int user_stack_test_marker(int x) {
  asm volatile("" ::: "memory");
  return x * 3 + 1;
}

namespace {

// The main program's load address and build id, as the dynamic loader has them in memory.
struct LoadedMain {
  uint64_t bias = 0;
  std::string build_id;
};

LoadedMain loaded_main() {
  LoadedMain out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* p) {
        auto* o = static_cast<LoadedMain*>(p);
        if (info->dlpi_name && info->dlpi_name[0]) return 0;  // not the main program
        o->bias = info->dlpi_addr;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_NOTE) continue;
          auto* n = reinterpret_cast<const uint8_t*>(info->dlpi_addr + ph.p_vaddr);
          auto* end = n + ph.p_memsz;
          while (n + sizeof(ElfW(Nhdr)) <= end) {
            auto* nh = reinterpret_cast<const ElfW(Nhdr)*>(n);
            const uint8_t* desc = n + sizeof *nh + ((nh->n_namesz + 3) & ~3u);
            if (nh->n_type == NT_GNU_BUILD_ID) {
              for (unsigned k = 0; k < nh->n_descsz; ++k) {
                char hex[3];
                snprintf(hex, sizeof hex, "%02x", desc[k]);
                o->build_id += hex;
              }
            }
            n = desc + ((nh->n_descsz + 3) & ~3u);
          }
        }
        return 1;
      },
      &out);
  return out;
}

std::vector<Mapping> own_maps() {
  std::string text;
  EXPECT_TRUE(read_file("/proc/self/maps", text));
  return parse_maps(text);
}

}  // namespace

TEST(ProcMaps, ParsesFilesAnonymousAndSpecialMappings) {
  std::vector<Mapping> maps = parse_maps(
      "7f0000002000-7f0000003000 rw-p 00000000 00:00 0 \n"
      "55d000000000-55d000001000 r--p 00000000 fe:01 1234                       /usr/bin/app\n"
      "55d000001000-55d000005000 r-xp 00001000 fe:01 1234                       /usr/bin/app\n"
      "7f0000000000-7f0000001000 r-xp 00002000 08:02 99   /tmp/lib x.so (deleted)\n"
      "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]\n"
      "garbage line\n");
  ASSERT_EQ(maps.size(), 5u);
  EXPECT_EQ(maps[0].path, "/usr/bin/app");  // sorted by address
  const Mapping* text = find_mapping(maps, 0x55d000001234);
  ASSERT_NE(text, nullptr);
  EXPECT_TRUE(text->executable);
  EXPECT_FALSE(text->writable);
  EXPECT_EQ(text->offset, 0x1000u);
  EXPECT_EQ(text->dev_major, 0xfeu);
  EXPECT_EQ(text->inode, 1234u);
  EXPECT_EQ(text->name(), "app");
  EXPECT_TRUE(text->file_backed());
  const Mapping* deleted = find_mapping(maps, 0x7f0000000010);
  ASSERT_NE(deleted, nullptr);
  EXPECT_TRUE(deleted->deleted);
  EXPECT_EQ(deleted->path, "/tmp/lib x.so");
  EXPECT_FALSE(find_mapping(maps, 0x7f0000002000)->file_backed());
  EXPECT_EQ(find_mapping(maps, 0x7ffd00000100)->name(), "[stack]");
  EXPECT_EQ(find_mapping(maps, 0x7f0000001000), nullptr);  // the gap between two
}

TEST(ProcSyscall, ParsesBlockedRunningAndFaultingTasks) {
  auto s = parse_syscall("202 0x55d0000a0 0x80 0x2 0x0 0x0 0x0 0x7f1c2a7fdce8 0x7f1c2b49a42b\n");
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->running);
  EXPECT_EQ(s->nr, 202);
  EXPECT_EQ(s->sp, 0x7f1c2a7fdce8u);
  EXPECT_EQ(s->pc, 0x7f1c2b49a42bu);
  s = parse_syscall("-1 0x7ffd1234 0x55d000001234\n");  // blocked outside a system call
  ASSERT_TRUE(s);
  EXPECT_EQ(s->nr, -1);
  EXPECT_EQ(s->pc, 0x55d000001234u);
  s = parse_syscall("running\n");
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->running);
  EXPECT_FALSE(parse_syscall("202 0x1 0x2"));
  EXPECT_FALSE(parse_syscall("x 0x1 0x2\n"));
  EXPECT_FALSE(parse_syscall(""));
}

TEST(ElfImage, BiasBuildIdAndSymbolsMatchTheLoader) {
  LoadedMain main = loaded_main();
  std::vector<Mapping> maps = own_maps();
  auto marker = reinterpret_cast<uint64_t>(&user_stack_test_marker);
  const Mapping* m = find_mapping(maps, marker);
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(m->executable);
  int fd = open(m->path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  std::string why;
  auto img = ElfImage::open_fd(fd, &why);
  close(fd);
  ASSERT_TRUE(img) << why;
  EXPECT_EQ(img->build_id(), main.build_id);
  EXPECT_FALSE(img->build_id().empty());
  auto bias = img->load_bias(m->start, m->offset);
  ASSERT_TRUE(bias);
  EXPECT_EQ(*bias, main.bias);
  EXPECT_GT(img->eh_frame_hdr_size(), 0u);
  // The function's own code, as the file holds it, is what runs.
  uint8_t from_file[16];
  ASSERT_TRUE(img->read_vaddr(marker - *bias, from_file, sizeof from_file));
  EXPECT_EQ(std::memcmp(from_file, reinterpret_cast<const void*>(marker), sizeof from_file), 0);
  auto syms = img->read_symbols();
  const Symbol* s = syms->find(marker - *bias + 2);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(syms->name(*s), "user_stack_test_marker");
  EXPECT_EQ(s->start, marker - *bias);
}

TEST(ElfImage, RefusesWhatIsNotElf) {
  hangscope::testing::TempDir tmp;
  std::string path = tmp.file("not-elf");
  FILE* f = fopen(path.c_str(), "w");
  fputs("#!/bin/sh\necho this is a shell script, long enough to be read as a header\n", f);
  fclose(f);
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  std::string why;
  EXPECT_FALSE(ElfImage::open_fd(fd, &why));
  close(fd);
  EXPECT_NE(why.find("ELF"), std::string::npos) << why;
}

TEST(BinaryCache, SymbolsAreReadOncePerBuildId) {
  // Two copies of this test binary under two paths (as in two containers): two files,
  // one symbol table.
  hangscope::testing::TempDir tmp;
  std::vector<Mapping> maps = own_maps();
  const Mapping* self = find_mapping(maps, reinterpret_cast<uint64_t>(&user_stack_test_marker));
  ASSERT_NE(self, nullptr);
  std::vector<Mapping> copies;
  for (const char* name : {"a", "b"}) {
    std::string path = tmp.file(name);
    std::filesystem::copy_file(self->path, path);
    struct stat st {};
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    Mapping m = *self;
    m.path = path;
    m.inode = st.st_ino;
    copies.push_back(m);
  }
  BinaryCache cache("/proc", tmp.file("no-debug"));
  // pid 0: no /proc/0/map_files, so the files are opened by path.
  auto a = cache.get(0, copies[0]);
  auto b = cache.get(0, copies[1]);
  ASSERT_TRUE(a && b);
  EXPECT_NE(a.get(), b.get());
  EXPECT_EQ(cache.get(0, copies[0]).get(), a.get());  // cached
  EXPECT_EQ(cache.symbols(*a).get(), cache.symbols(*b).get());
  EXPECT_EQ(cache.stats().files, 2u);
  EXPECT_EQ(cache.stats().symbol_tables, 1u);
  Mapping anon = *self;
  anon.path.clear();
  anon.inode = 0;
  EXPECT_EQ(cache.get(0, anon), nullptr);
}

TEST(TargetMemory, ReadsStackRemotelyAndCodeFromTheFile) {
  std::vector<Mapping> maps = own_maps();
  BinaryCache cache;
  int fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  TargetMemory mem(getpid(), fd, maps, cache);
  volatile uint64_t on_stack = 0x1122334455667788;
  uint64_t got = 0;
  ASSERT_TRUE(mem.read(reinterpret_cast<uint64_t>(&on_stack), &got, sizeof got));
  EXPECT_EQ(got, 0x1122334455667788u);
  EXPECT_EQ(mem.remote_reads(), 1u);
  auto marker = reinterpret_cast<uint64_t>(&user_stack_test_marker);
  uint64_t code = 0;
  ASSERT_TRUE(mem.read(marker, &code, sizeof code));
  EXPECT_EQ(std::memcmp(&code, reinterpret_cast<const void*>(marker), sizeof code), 0);
  EXPECT_EQ(mem.remote_reads(), 1u);            // the code came from the cached binary
  EXPECT_FALSE(mem.read(8, &got, sizeof got));  // unmapped
  close(fd);
}
