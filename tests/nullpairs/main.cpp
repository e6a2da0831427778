// hangscope-null-pairs: writes pairs of synthetic captures whose two sides come from one
// distribution (the rates of a real capture's stacks; see null_pairs.hpp), to check by
// hand or in bulk that `hangscope diff` of each pair finds nothing:
//
//   hangscope-null-pairs --from fixtures/capture/storm-overlayfs-ext4.capture -o DIR
//   for b in DIR/*-base.capture; do hangscope diff --base $b --target
//   ${b%-base.capture}-target.capture; done
//
// With --design NAME, the pairs of a design of the calibration (calibration.hpp: runs a
// side, run effects, growth) as the benchmark draws them, a file a run:
//
//   hangscope-null-pairs --from ... --design '3v3 +1 5%' -o DIR
//   hangscope diff --base DIR/pair-000-base-*.capture --target DIR/pair-000-target-*.capture
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <filesystem>

#include "calibration.hpp"
#include "hangscope/ingest.hpp"
#include "null_pairs.hpp"

using namespace hangscope;

int main(int argc, char** argv) {
  CLI::App app{"Writes pairs of captures whose sides come from the same distribution"};
  std::string from, dir, design;
  unsigned pairs = 100, rounds = 150;
  uint64_t seed = 1;
  app.add_option("--from", from, "The real capture whose stacks' rates are drawn from")->required();
  app.add_option("-o,--output", dir, "Directory for the pairs (created)")->required();
  app.add_option("--pairs", pairs, "How many pairs")->capture_default_str();
  app.add_option("--rounds", rounds, "Rounds of each capture")->capture_default_str();
  app.add_option("--seed", seed, "Seed of the first capture; capture i has seed + i")
      ->capture_default_str();
  app.add_option("--design", design,
                 "The pairs of a design of the calibration ('3v3 +1 5%'), a file a run; its "
                 "pairs unless --pairs is given, its rounds and seeds")
      ->excludes("--seed")
      ->excludes("--rounds");
  CLI11_PARSE(app, argc, argv);
  try {
    Capture real;
    read_input(from, "", real);
    nullpairs::NullModel model = nullpairs::null_model(real);
    std::filesystem::create_directories(dir);
    if (!design.empty()) {
      const nullpairs::Design& d = nullpairs::design(design);
      const unsigned count = app.count("--pairs") ? pairs : d.pairs;
      const std::string command =
          fmt::format("hangscope-null-pairs --from {} --design '{}'", from, design);
      for (bool target : {false, true}) {
        const nullpairs::NullModel side = nullpairs::side_model(d, model, target);
        for (unsigned i = 0; i < count; ++i)
          for (unsigned r = 0; r < d.runs; ++r) {
            const uint64_t s = nullpairs::run_seed(d, i, target, r);
            nullpairs::write_capture(nullpairs::null_capture(side, d.rounds, s, d.spread),
                                     fmt::format("{}/pair-{:03}-{}-{}.capture", dir, i,
                                                 target ? "target" : "base", r + 1),
                                     fmt::format("{} (run seed {})", command, s));
          }
      }
      fmt::print("{} pairs of {} runs a side from {} stacks in {}\n", count, d.runs,
                 model.stacks.size(), dir);
      return 0;
    }
    const std::string command =
        fmt::format("hangscope-null-pairs --from {} --rounds {} --seed {}", from, rounds, seed);
    for (unsigned i = 0; i < pairs; ++i)
      for (unsigned side = 0; side < 2; ++side) {
        const uint64_t s = seed + 2 * i + side;
        std::string path =
            fmt::format("{}/null-{:03}-{}.capture", dir, i, side ? "target" : "base");
        nullpairs::write_capture(nullpairs::null_capture(model, rounds, s), path,
                                 fmt::format("{} (capture seed {})", command, s));
      }
    fmt::print("{} pairs of {} rounds from {} stacks in {}\n", pairs, rounds, model.stacks.size(),
               dir);
  } catch (const std::exception& e) {
    fmt::print(stderr, "hangscope-null-pairs: {}\n", e.what());
    return 1;
  }
  return 0;
}
