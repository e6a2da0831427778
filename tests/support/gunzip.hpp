// A gzip stream inflated whole, for tests that read back what a renderer compressed
// (pprof); a stream that does not end where it should fails the test.
#pragma once

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

namespace hangscope::testing {

inline std::string gunzip(const std::string& gz) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
  std::string out;
  char buf[65536];
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  int rc;
  do {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
  } while (rc == Z_OK);
  inflateEnd(&z);
  EXPECT_EQ(rc, Z_STREAM_END) << "not a complete gzip stream";
  return out;
}

}  // namespace hangscope::testing
