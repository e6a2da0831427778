// Compressed inputs, read transparently: gzip (zlib) and zstd (libzstd) streams are
// recognised by their magic bytes, whatever the file is called, and decompressed as
// they are read, so a large dump never sits in memory whole.
#include <cstring>
#include <vector>

#include <fmt/format.h>
#include <zlib.h>
#include <zstd.h>

#include "hangscope/ingest.hpp"

namespace hangscope {

namespace {

constexpr size_t kChunk = 256 * 1024;

// Hands back the bytes already read for the magic check before the rest of the source.
class Replay {
 public:
  Replay(std::unique_ptr<ByteSource> src, std::string head)
      : src_(std::move(src)), head_(std::move(head)) {}
  size_t read(char* buf, size_t n) {
    if (pos_ < head_.size()) {
      size_t k = std::min(n, head_.size() - pos_);
      std::memcpy(buf, head_.data() + pos_, k);
      pos_ += k;
      return k;
    }
    return src_->read(buf, n);
  }

 private:
  std::unique_ptr<ByteSource> src_;
  std::string head_;
  size_t pos_ = 0;
};

class ReplaySource final : public ByteSource {
 public:
  explicit ReplaySource(Replay r) : r_(std::move(r)) {}
  size_t read(char* buf, size_t n) override { return r_.read(buf, n); }

 private:
  Replay r_;
};

class GzipSource final : public ByteSource {
 public:
  GzipSource(Replay in, std::string name)
      : in_(std::move(in)), name_(std::move(name)), buf_(kChunk) {
    std::memset(&z_, 0, sizeof z_);
    if (inflateInit2(&z_, 15 + 32) != Z_OK)  // 32: a gzip or zlib header, detected
      throw InputError(fmt::format("{}: cannot start the gzip decoder", name_));
  }
  ~GzipSource() override { inflateEnd(&z_); }
  size_t read(char* out, size_t n) override {
    z_.next_out = reinterpret_cast<Bytef*>(out);
    z_.avail_out = static_cast<uInt>(std::min<size_t>(n, UINT32_MAX));
    const uInt want = z_.avail_out;
    while (z_.avail_out == want) {
      // More input only when the decoder has nothing buffered to hand out.
      if (z_.avail_in == 0 && !pending_) {
        if (eof_) break;
        size_t got = in_.read(buf_.data(), buf_.size());
        if (got == 0) {
          eof_ = true;
          if (in_member_)
            throw InputError(fmt::format("{}: gzip data ends early (cut file?)", name_));
          break;
        }
        z_.next_in = reinterpret_cast<Bytef*>(buf_.data());
        z_.avail_in = static_cast<uInt>(got);
      }
      in_member_ = true;
      int rc = inflate(&z_, Z_NO_FLUSH);
      pending_ = z_.avail_out == 0;
      if (rc == Z_STREAM_END) {
        in_member_ = false;  // another member may follow (cat a.gz b.gz)
        pending_ = false;
        inflateReset(&z_);
      } else if (rc == Z_BUF_ERROR) {
        pending_ = false;  // no progress possible without more input
      } else if (rc != Z_OK) {
        throw InputError(fmt::format("{}: corrupt gzip data ({})", name_, z_.msg ? z_.msg : "?"));
      }
    }
    return want - z_.avail_out;
  }

 private:
  Replay in_;
  std::string name_;
  std::vector<char> buf_;
  z_stream z_;
  bool eof_ = false;
  bool in_member_ = false;
  bool pending_ = false;
};

class ZstdSource final : public ByteSource {
 public:
  ZstdSource(Replay in, std::string name)
      : in_(std::move(in)), name_(std::move(name)), buf_(ZSTD_DStreamInSize()),
        ds_(ZSTD_createDStream()) {
    if (!ds_) throw InputError(fmt::format("{}: cannot start the zstd decoder", name_));
    // Refuse frames that ask for a window over 128 MiB: no input may make us allocate
    // without bound (zstd's own default limit, stated here on purpose).
    ZSTD_DCtx_setParameter(ds_, ZSTD_d_windowLogMax, 27);
  }
  ~ZstdSource() override { ZSTD_freeDStream(ds_); }
  size_t read(char* out, size_t n) override {
    ZSTD_outBuffer o{out, n, 0};
    while (o.pos == 0) {
      // More input only when the decoder has nothing buffered to hand out.
      if (in_buf_.pos == in_buf_.size && !pending_) {
        if (eof_) break;
        size_t got = in_.read(buf_.data(), buf_.size());
        if (got == 0) {
          eof_ = true;
          if (in_frame_)
            throw InputError(fmt::format("{}: zstd data ends early (cut file?)", name_));
          break;
        }
        in_buf_ = ZSTD_inBuffer{buf_.data(), got, 0};
      }
      size_t rc = ZSTD_decompressStream(ds_, &o, &in_buf_);
      if (ZSTD_isError(rc))
        throw InputError(fmt::format("{}: corrupt zstd data ({})", name_, ZSTD_getErrorName(rc)));
      in_frame_ = rc != 0;
      pending_ = o.pos == o.size;
    }
    return o.pos;
  }

 private:
  Replay in_;
  std::string name_;
  std::vector<char> buf_;
  ZSTD_DStream* ds_;
  ZSTD_inBuffer in_buf_{nullptr, 0, 0};
  bool eof_ = false;
  bool in_frame_ = false;
  bool pending_ = false;
};

}  // namespace

std::unique_ptr<ByteSource> decompressing(std::unique_ptr<ByteSource> src,
                                          const std::string& name) {
  std::string head(4, '\0');
  size_t got = 0;
  while (got < head.size()) {
    size_t n = src->read(head.data() + got, head.size() - got);
    if (n == 0) break;
    got += n;
  }
  head.resize(got);
  Replay replay(std::move(src), head);
  switch (compression_of(head)) {
    case Compression::gzip: return std::make_unique<GzipSource>(std::move(replay), name);
    case Compression::zstd: return std::make_unique<ZstdSource>(std::move(replay), name);
    case Compression::none: break;
  }
  return std::make_unique<ReplaySource>(std::move(replay));
}

Compression compression_of(std::string_view head) {
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
      static_cast<unsigned char>(head[1]) == 0x8b)
    return Compression::gzip;
  if (head.starts_with(std::string_view("\x28\xb5\x2f\xfd", 4))) return Compression::zstd;
  return Compression::none;
}

}  // namespace hangscope
