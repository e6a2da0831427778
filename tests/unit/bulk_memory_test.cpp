// Arrays faulted in on several threads (hangscope/bulk_allocator.hpp): populate makes a
// fresh mapping's pages resident, and reserve_on_threads grows a vector as a vector grows,
// its elements kept.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "hangscope/bulk_allocator.hpp"

using namespace hangscope;

namespace {

// The resident pages of [p, p + bytes), as mincore() reports them.
size_t resident_pages(const void* p, size_t bytes) {
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> in((bytes + page - 1) / page);
  if (::mincore(const_cast<void*>(p), bytes, in.data()) != 0) return SIZE_MAX;
  return static_cast<size_t>(
      std::count_if(in.begin(), in.end(), [](unsigned char c) { return c & 1; }));
}

TEST(BulkMemory, PopulateMakesEveryPageOfAFreshArrayResident) {
  constexpr size_t kBytes = 5 * bulk_memory::kHugePage + 4096;  // six huge pages mapped
  void* p = bulk_memory::allocate(kBytes);
  const size_t mapped = bulk_memory::mapped_size(kBytes);
  const auto pages = mapped / static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  ASSERT_EQ(resident_pages(p, mapped), 0u) << "a fresh mapping has no page yet";
  // Where the kernel has no MADV_POPULATE_WRITE, populate leaves the pages to their first
  // write; this test then has nothing to see.
  void* probe = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(probe, MAP_FAILED);
  const bool supported = ::madvise(probe, 4096, MADV_POPULATE_WRITE) == 0;
  ::munmap(probe, 4096);
  if (!supported) {
    bulk_memory::deallocate(p, kBytes);
    GTEST_SKIP() << "the kernel has no MADV_POPULATE_WRITE (Linux 5.14)";
  }
  for (unsigned threads : {1u, 2u, 3u}) {
    SCOPED_TRACE(threads);
    bulk_memory::populate(p, kBytes, threads);
    EXPECT_EQ(resident_pages(p, mapped), pages);
    ::madvise(p, mapped, MADV_DONTNEED);  // fresh again for the next count
    ASSERT_EQ(resident_pages(p, mapped), 0u);
  }
  bulk_memory::deallocate(p, kBytes);
}

TEST(BulkMemory, ReserveOnThreadsKeepsTheElementsAndGrowsTwofold) {
  for (size_t before : {size_t{1000}, size_t{1} << 20}) {  // below and above kThreshold
    SCOPED_TRACE(before);
    BulkVector<uint64_t> v(before);
    std::iota(v.begin(), v.end(), uint64_t{7});
    const size_t capacity = v.capacity();
    reserve_on_threads(v, capacity + 1, 2);
    EXPECT_GE(v.capacity(), 2 * capacity);
    ASSERT_EQ(v.size(), before);
    for (size_t i = 0; i < before; ++i) ASSERT_EQ(v[i], i + 7) << i;
    const size_t grown = v.capacity();
    reserve_on_threads(v, 5 * grown, 2);  // more than twice: the size asked for
    EXPECT_GE(v.capacity(), 5 * grown);
    EXPECT_EQ(v[before - 1], before + 6);
    const uint64_t* data = v.data();
    reserve_on_threads(v, before, 2);  // room enough: nothing moves
    EXPECT_EQ(v.data(), data);
  }
}

}  // namespace
