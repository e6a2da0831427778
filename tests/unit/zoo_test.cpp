// The zoo (fixtures/zoo/): real captures of common hangs recorded on this project's
// machine by fixtures/zoo/make-zoo.sh, each with an answer key the script wrote from the
// tasks it started. For every one, the report's opening lines (the first finding of the
// verdict) name the dominant wait (what the heaviest group waits for) and the holder task
// or the root beyond it, name no false root, and at most 2% of the blocked samples are
// unclassified. A scenario of two independent hangs has a second finding (`also`) that
// names its own root and holder and nothing of the first (tests/support/zoo_keys.hpp).
#include <gtest/gtest.h>

#include <map>

#include "support/zoo_keys.hpp"

using namespace hangscope;
using namespace hangscope::testing;

TEST(Zoo, EveryScenarioHasCapturesAndKeys) {
  std::map<std::string, int> takes;
  for (const ZooKey& k : zoo_keys(HANGSCOPE_FIXTURES "/zoo")) {
    EXPECT_TRUE(std::filesystem::exists(k.capture)) << k.path << ": no capture " << k.capture;
    ASSERT_EQ(k.lines.count("scenario"), 1u) << k.path;
    ++takes[k.lines.find("scenario")->second];
  }
  for (const char* s :
       {"fuse-stalled", "fsfreeze", "fsfreeze-held", "page-lock", "page-lock-async", "dir-lock",
        "mmap-lock", "dirty-throttle", "ext4-storm", "sync-dead-device",
        // causes off the stack (issue 42)
        "io-throttle-v1", "memcg-reclaim", "memcg-oom", "freezer-v1", "freeze-v2",
        "vfork-stopped", "ptrace-unreaped", "uffd-unserved", "fanotify-unanswered",
        "fuse-frozen", "loop-on-frozen", "umount-sync",
        // two independent hangs (issue 46)
        "two-storms"})
    EXPECT_GE(takes[s], 2) << s << ": a take to write the rules on and one held out";
}

TEST(Zoo, OpeningLinesNameTheDominantWaitAndItsHolderOrRoot) {
  for (const ZooKey& k : zoo_keys(HANGSCOPE_FIXTURES "/zoo")) {
    SCOPED_TRACE(k.path);
    for (const std::string& miss : zoo_misses(k)) ADD_FAILURE() << miss;
  }
}
