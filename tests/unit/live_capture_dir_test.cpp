// watch's capture directory (capture_dir.hpp): refused when it is not private, captures
// appear under their final name only once complete, and rotation removes only the oldest
// captures watch wrote, never through a symlink.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "hangscope/capture_dir.hpp"
#include "support/temp_dir.hpp"

using namespace hangscope;
using namespace hangscope::testing;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> names(const std::string& dir) {
  std::vector<std::string> v;
  for (const auto& e : fs::directory_iterator(dir)) v.push_back(e.path().filename().string());
  std::sort(v.begin(), v.end());
  return v;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

const std::string kWatchCapture = "# hangscope capture\nversion 2\nwatch_trigger signal\ndata\n";

}  // namespace

TEST(CaptureDir, NamesCapturesByTimeAndTrigger) {
  // 2026-12-01 18:22:33.123 UTC
  std::string n = CaptureDir::capture_name(1'796'149'353'123'456'789, "blocked-for");
  EXPECT_EQ(n, "hangscope-20261201T182233.123Z-blocked-for.capture");
  EXPECT_TRUE(CaptureDir::capture_named(n));
  EXPECT_FALSE(CaptureDir::capture_named("hangscope-20261201T182233.123Z-.capture"));
  EXPECT_FALSE(CaptureDir::capture_named("hangscope-2026120XT182233.123Z-signal.capture"));
  EXPECT_FALSE(CaptureDir::capture_named("notes.txt"));
}

TEST(CaptureDir, CreatesAPrivateDirectoryAndRefusesOneThatIsNot) {
  TempDir t;
  CaptureDir created(t.file("new"));
  struct stat st {};
  ASSERT_EQ(stat(t.file("new").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);

  fs::create_directory(t.file("open"));
  chmod(t.file("open").c_str(), 0777);
  try {
    CaptureDir d(t.file("open"));
    ADD_FAILURE() << "a directory writable by others was accepted";
  } catch (const CaptureDirError& e) {
    EXPECT_NE(std::string(e.what()).find("writable by others (mode 0777)"), std::string::npos)
        << e.what();
  }
  fs::create_directory_symlink(t.file("new"), t.file("link"));
  try {
    CaptureDir d(t.file("link"));
    ADD_FAILURE() << "a symlink was accepted";
  } catch (const CaptureDirError& e) {
    EXPECT_NE(std::string(e.what()).find("is a symbolic link"), std::string::npos) << e.what();
  }
  write_file(t.file("file"), "x");
  EXPECT_THROW(CaptureDir(t.file("file")), CaptureDirError);
  // Readable by others but ours and not writable by them: made private.
  fs::create_directory(t.file("readable"));
  chmod(t.file("readable").c_str(), 0755);
  CaptureDir readable(t.file("readable"));
  ASSERT_EQ(stat(t.file("readable").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST(CaptureDir, AFailedWriteLeavesNoFileWithTheFinalName) {
  TempDir t;
  CaptureDir d(t.file("c"));
  const std::string name = CaptureDir::capture_name(1'796'149'353'000'000'000, "signal");
  EXPECT_THROW(d.write(name,
                       [](int fd) {
                         ASSERT_EQ(::write(fd, "# hangscope capture\n", 20), 20);
                         throw std::system_error(ENOSPC, std::generic_category(),
                                                 "writing the capture");
                       }),
               std::system_error);
  EXPECT_TRUE(names(t.file("c")).empty());  // the temporary file is gone too

  std::string path = d.write(name, [](int fd) {
    ASSERT_EQ(::write(fd, kWatchCapture.data(), kWatchCapture.size()),
              static_cast<ssize_t>(kWatchCapture.size()));
  });
  EXPECT_EQ(path, t.file("c") + "/" + name);
  EXPECT_EQ(names(t.file("c")), std::vector<std::string>{name});
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(CaptureDir, RotationRemovesOnlyItsOwnOldestCaptures) {
  TempDir t;
  CaptureDir d(t.file("c"));
  std::vector<std::string> ours;
  for (int i = 0; i < 5; ++i) {
    std::string n = CaptureDir::capture_name(1'796'149'353'000'000'000 + i * 1'000'000'000ll,
                                             "blocked-for");
    d.write(n, [](int fd) {
      ASSERT_GT(::write(fd, kWatchCapture.data(), kWatchCapture.size()), 0);
    });
    ours.push_back(n);
  }
  // Named like ours, but not ours: a capture record wrote, a note, and a symlink to a
  // capture of ours elsewhere. None of them is removed, and the link is not followed.
  const std::string record_capture = "hangscope-20200101T000000.000Z-signal.capture";
  write_file(t.file("c/" + record_capture), "# hangscope capture\nversion 2\ndata\n");
  write_file(t.file("c/notes.txt"), "mine");
  write_file(t.file("elsewhere.capture"), kWatchCapture);
  const std::string link = "hangscope-20200101T000001.000Z-signal.capture";
  fs::create_symlink(t.file("elsewhere.capture"), t.file("c/" + link));

  std::vector<std::string> removed = d.rotate(3, 0);
  EXPECT_EQ(removed, (std::vector<std::string>{ours[0], ours[1]}));
  std::vector<std::string> left{record_capture, link, ours[2], ours[3], ours[4], "notes.txt"};
  std::sort(left.begin(), left.end());
  EXPECT_EQ(names(t.file("c")), left);
  EXPECT_TRUE(fs::exists(t.file("elsewhere.capture")));

  // By bytes: each is kWatchCapture.size() long; the newest always stays.
  removed = d.rotate(0, kWatchCapture.size() * 2);
  EXPECT_EQ(removed, std::vector<std::string>{ours[2]});
  removed = d.rotate(0, 1);
  EXPECT_EQ(removed, std::vector<std::string>{ours[3]});
  EXPECT_TRUE(fs::exists(t.file("c/" + ours[4])));
}
