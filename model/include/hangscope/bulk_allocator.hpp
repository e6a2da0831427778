// Memory for the model's big arrays (samples, stack frames, the stack index), backed by
// transparent huge pages where the kernel offers them.
//
// Reading a large input is bound by first touches of fresh memory as much as by
// parsing: a 200 MB folded file builds some 150 MB of model, and at 4 KiB a page that
// is 37,000 page faults; on a virtual machine a fault costs microseconds, more than the
// parsing of the line that caused it. Asking for huge pages (MADV_HUGEPAGE, honoured in
// the kernel's "always" and "madvise" modes) makes it one fault per 2 MiB. Small
// arrays stay with the ordinary allocator; where huge pages are off, nothing changes.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace hangscope {

namespace bulk_memory {

constexpr size_t kHugePage = size_t{2} << 20;

// Arrays from this size on get their own mapping, aligned to a huge page.
constexpr size_t kThreshold = kHugePage;

inline size_t mapped_size(size_t bytes) { return (bytes + kHugePage - 1) & ~(kHugePage - 1); }

inline void* allocate(size_t bytes) {
  if (bytes < kThreshold) return ::operator new(bytes);
  const size_t size = mapped_size(bytes);
  // Map one huge page more than needed, then cut the ends so that the start is aligned.
  void* raw =
      mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  auto start = reinterpret_cast<uintptr_t>(raw);
  uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
  if (aligned > start) munmap(raw, aligned - start);
  if (uintptr_t end = start + size + kHugePage; end > aligned + size)
    munmap(reinterpret_cast<void*>(aligned + size), end - (aligned + size));
  (void)madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);  // a hint only
  return reinterpret_cast<void*>(aligned);
}

inline void deallocate(void* p, size_t bytes) noexcept {
  if (bytes < kThreshold)
    ::operator delete(p);
  else
    munmap(p, mapped_size(bytes));
}

// The pages of an array of `bytes` at p, from allocate(), faulted in on up to `threads`
// threads (0: one per CPU): the kernel zeroes a fresh page on the thread that touches it
// first, and on a virtual machine whose host has taken the memory back, that costs up to
// milliseconds a huge page. Arrays below kThreshold are left alone (the heap's pages,
// mostly touched before).
void populate(void* p, size_t bytes, unsigned threads);

}  // namespace bulk_memory

template <typename T>
struct BulkAllocator {
  using value_type = T;
  BulkAllocator() noexcept = default;
  template <typename U>
  BulkAllocator(const BulkAllocator<U>&) noexcept {}
  T* allocate(size_t n) {
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(bulk_memory::allocate(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept { bulk_memory::deallocate(p, n * sizeof(T)); }
  template <typename U>
  bool operator==(const BulkAllocator<U>&) const noexcept {
    return true;
  }
};

// A vector whose storage, once large, lives in huge pages.
template <typename T>
using BulkVector = std::vector<T, BulkAllocator<T>>;

// Makes room in v for n elements, its storage's pages faulted in on `threads` threads
// (populate): for an array that one thread grows, where a growing vector would fault
// the new storage's pages in on that thread alone. Capacity grows at least twofold, as
// a vector's does.
template <typename T>
void reserve_on_threads(BulkVector<T>& v, size_t n, unsigned threads) {
  if (n <= v.capacity()) return;
  BulkVector<T> grown;
  grown.reserve(std::max(n, 2 * v.capacity()));
  bulk_memory::populate(grown.data(), n * sizeof(T), threads);  // the room asked for
  grown.insert(grown.end(), std::make_move_iterator(v.begin()), std::make_move_iterator(v.end()));
  v.swap(grown);
}

// A BulkAllocator whose vectors' resize() leaves new elements default-initialised, which
// for a trivial type is not at all: for arrays that threads then fill in parts, so that
// each page is first touched by the thread that fills it, not zeroed on one before.
template <typename T>
struct FillAllocator : BulkAllocator<T> {
  template <typename U>
  struct rebind {
    using other = FillAllocator<U>;
  };
  FillAllocator() noexcept = default;
  template <typename U>
  FillAllocator(const FillAllocator<U>&) noexcept {}
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <typename T>
using FillVector = std::vector<T, FillAllocator<T>>;

}  // namespace hangscope
