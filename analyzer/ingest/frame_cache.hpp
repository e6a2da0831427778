// Frame texts as they stand in the input, mapped to interned frames (one cache per kind
// of frame). Text formats
// repeat the same few thousand frame names millions of times: a folded file of 200 MB
// holds some 13 million frames and a few thousand names. Each frame costs one hash of
// its bytes and, nearly always, one probe of a table small enough for the cache; the
// parsing and interning behind it run once per distinct text.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "hangscope/stack_table.hpp"

namespace hangscope::ingest {

namespace text_hash {

inline uint64_t load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

inline uint32_t load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// A 64x64 -> 128-bit multiply folded to 64 bits: one instruction's worth of mixing.
inline uint64_t mix(uint64_t a, uint64_t b) {
  unsigned __int128 m = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(m) ^ static_cast<uint64_t>(m >> 64);
}

// Reads the text eight bytes at a time, never past its end (the last word overlaps
// the one before it), so that a frame name costs two or three multiplies.
inline uint64_t hash(std::string_view s) {
  const char* p = s.data();
  const size_t n = s.size();
  uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
  if (n > 8) {
    const char* last = p + n - 8;
    for (; p < last; p += 8) h = mix(h ^ load64(p), 0xa0761d6478bd642full);
    h = mix(h ^ load64(last), 0xe7037ed1a0b428dbull);
  } else if (n >= 4) {
    h = mix(h ^ (load32(p) | uint64_t{load32(p + n - 4)} << 32), 0xe7037ed1a0b428dbull);
  } else if (n > 0) {
    auto byte = [&](size_t i) { return uint64_t{static_cast<unsigned char>(p[i])}; };
    h = mix(h ^ (byte(0) | byte(n / 2) << 8 | byte(n - 1) << 16), 0xe7037ed1a0b428dbull);
  }
  return mix(h, 0x8ebc6af09c88c6e3ull);
}

// Equality of two texts of the same length n; names of up to 32 bytes (most frames:
// "ext4_file_write_iter", "jbd2_log_wait_commit") without a library call, which cost
// about a tenth of reading a folded file of such names.
inline bool same(const char* a, const char* b, size_t n) {
  if (n >= 8 && n <= 16) return load64(a) == load64(b) && load64(a + n - 8) == load64(b + n - 8);
  if (n > 16 && n <= 32)
    return load64(a) == load64(b) && load64(a + 8) == load64(b + 8) &&
           load64(a + n - 16) == load64(b + n - 16) && load64(a + n - 8) == load64(b + n - 8);
  return std::memcmp(a, b, n) == 0;
}

}  // namespace text_hash

class FrameCache {
 public:
  FrameCache() : slots_(1024) {}

  // Looked up in two steps, with the text's hash (text_hash::hash): a reader that has a
  // line's frames at hand asks for the slots of all of them first, so that their loads
  // from memory overlap instead of waiting one after the other.
  void prefetch(uint64_t h) const { __builtin_prefetch(&slots_[h & (slots_.size() - 1)]); }
  // `make` turns a text the cache has not seen into a frame: text -> FrameId.
  template <typename Make>
  FrameId get(std::string_view text, uint64_t h, Make&& make) {
    if (FrameId frame = find(text, h); frame != kNone) return frame;
    FrameId frame = make(text);
    put(text, h, frame);
    return frame;
  }

  // For readers whose lines may be no frame at all: the frame of a text seen before, or
  // kNone; and a text found to be a frame, kept.
  static constexpr FrameId kNone = UINT32_MAX;
  FrameId find(std::string_view text, uint64_t h) const {
    const auto tag = static_cast<uint32_t>(h >> 32);
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.size == kEmpty) return kNone;
      if (s.tag == tag && s.size == text.size() &&
          text_hash::same(texts_.data() + s.offset, text.data(), s.size))
        return s.frame;
    }
  }
  void put(std::string_view text, uint64_t h, FrameId frame) {
    if (text.size() >= kEmpty || texts_.size() + text.size() > UINT32_MAX) return;
    insert({static_cast<uint32_t>(h >> 32), static_cast<uint32_t>(text.size()),
            static_cast<uint32_t>(texts_.size()), frame},
           h);
    texts_.append(text);
  }

 private:
  // Sixteen bytes a slot, and the texts side by side in one string: a table of the
  // twenty thousand names of a large profile stays within the processor's cache.
  struct Slot {
    uint32_t tag = 0;  // the hash's upper half
    uint32_t size = kEmpty;
    uint32_t offset = 0;  // of the text in texts_
    FrameId frame = 0;
  };
  static constexpr uint32_t kEmpty = UINT32_MAX;

  void insert(const Slot& slot, uint64_t h) {
    if ((used_ + 1) * 2 > slots_.size()) {  // at most half full: probes stay short
      std::vector<Slot> old(slots_.size() * 2);
      old.swap(slots_);
      for (const Slot& s : old)
        if (s.size != kEmpty) place(s, text_hash::hash({texts_.data() + s.offset, s.size}));
    }
    place(slot, h);
    ++used_;
  }

  void place(const Slot& slot, uint64_t h) {
    const size_t mask = slots_.size() - 1;
    size_t i = h & mask;
    while (slots_[i].size != kEmpty) i = (i + 1) & mask;
    slots_[i] = slot;
  }

  std::vector<Slot> slots_;  // a power of two in size
  std::string texts_;
  size_t used_ = 0;
};

}  // namespace hangscope::ingest
