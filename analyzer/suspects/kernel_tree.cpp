#include "kernel_tree.hpp"

#include <sys/stat.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "git_process.hpp"

namespace hangscope::suspects_detail {

namespace fs = std::filesystem;

namespace {

// Top-level directories of user-space programs and documentation.
constexpr std::array<std::string_view, 5> kNotKernel = {"tools/", "scripts/", "samples/",
                                                        "Documentation/", "usr/"};

uint64_t fnv1a(std::string_view s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string hex(uint64_t v) {
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
  return b;
}

std::optional<std::string> read_whole(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::nullopt;
  std::ostringstream ss;
  ss << f.rdbuf();
  return std::move(ss).str();
}

// Hands each path's index to `work` on up to `threads` threads.
void on_threads(size_t n, unsigned threads, const std::function<void(size_t)>& work) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<size_t> next{0};
  auto run = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) work(i);
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads && t < n; ++t) pool.emplace_back(run);
  run();
  for (std::thread& t : pool) t.join();
}

class DirectoryTree final : public KernelTree {
 public:
  DirectoryTree(std::string dir, std::string version) : dir_(std::move(dir)) {
    name_ = dir_;
    version_ = std::move(version);
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir_, ec), end; it != end; it.increment(ec)) {
      if (ec) break;
      const fs::path& p = it->path();
      if (p.filename().string().starts_with('.') && it->is_directory(ec)) {
        it.disable_recursion_pending();
        continue;
      }
      std::string rel = p.lexically_relative(dir_).generic_string();
      if (!it->is_regular_file(ec) || !indexed_source(rel)) continue;
      struct stat st;
      if (stat(p.c_str(), &st) != 0) continue;
      fingerprint_ = fnv1a(rel, fingerprint_);
      fingerprint_ = fnv1a(std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) +
                               "." + std::to_string(st.st_mtim.tv_nsec),
                           fingerprint_);
      files_.push_back(std::move(rel));
    }
  }
  std::vector<std::string> source_files() const override { return files_; }
  std::string cache_key() const override {
    return "dir-" + hex(fnv1a(fs::weakly_canonical(dir_).string())) + "-" + hex(fingerprint_);
  }
  void read_files(const std::vector<std::string>& paths, unsigned threads,
                  const std::function<void(size_t, const std::string&)>& take,
                  const std::function<void(size_t)>& done) const override {
    std::atomic<size_t> count{0};
    on_threads(paths.size(), threads, [&](size_t i) {
      if (auto text = read(paths[i])) take(i, *text);
      done(count.fetch_add(1) + 1);
    });
  }
  std::optional<std::string> read(const std::string& path) const override {
    return read_whole(dir_ + "/" + path);
  }

 private:
  std::string dir_;
  std::vector<std::string> files_;
  uint64_t fingerprint_ = 1469598103934665603ull;
};

class GitTree final : public KernelTree {
 public:
  GitTree(std::string git_dir, std::string rev, std::string commit, std::string tree,
          std::string version)
      : git_dir_(std::move(git_dir)), commit_(std::move(commit)), tree_(std::move(tree)) {
    name_ = std::move(rev);
    version_ = std::move(version);
  }
  bool list(std::string& why) {
    ProcessResult r = run_git(git_dir_, {"ls-tree", "-r", "-z", "--full-tree", commit_});
    if (r.status != 0) {
      why = first_line(r.err);
      return false;
    }
    // "<mode> blob <id>\t<path>\0"
    for (size_t p = 0; p < r.out.size();) {
      size_t e = r.out.find('\0', p);
      if (e == std::string::npos) e = r.out.size();
      std::string_view entry(r.out.data() + p, e - p);
      p = e + 1;
      size_t tab = entry.find('\t');
      size_t blob = entry.substr(0, tab).find(" blob ");
      if (tab == std::string_view::npos || blob == std::string_view::npos) continue;
      std::string path(entry.substr(tab + 1));
      if (!indexed_source(path)) continue;
      blob_of_.emplace(path, entry.substr(blob + 6, tab - blob - 6));  // SHA-1 or SHA-256
      files_.push_back(std::move(path));
    }
    return true;
  }
  std::vector<std::string> source_files() const override { return files_; }
  std::string cache_key() const override { return "git-" + tree_; }
  void read_files(const std::vector<std::string>& paths, unsigned threads,
                  const std::function<void(size_t, const std::string&)>& take,
                  const std::function<void(size_t)>& done) const override {
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    std::atomic<size_t> next{0}, count{0};
    auto run = [&] {
      CatFile cat(git_dir_);
      for (size_t i; (i = next.fetch_add(1)) < paths.size();) {
        auto blob = blob_of_.find(paths[i]);
        auto text = cat.read(blob != blob_of_.end() ? blob->second : commit_ + ":" + paths[i]);
        if (text) take(i, *text);
        done(count.fetch_add(1) + 1);
      }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads && t < paths.size(); ++t) pool.emplace_back(run);
    run();
    for (std::thread& t : pool) t.join();
  }
  std::optional<std::string> read(const std::string& path) const override {
    ProcessResult r = run_git(git_dir_, {"cat-file", "blob", commit_ + ":" + path});
    if (r.status != 0) return std::nullopt;
    return std::move(r.out);
  }

 private:
  std::string git_dir_, commit_, tree_;
  std::vector<std::string> files_;
  std::unordered_map<std::string, std::string> blob_of_;  // path -> blob id
};

}  // namespace

bool indexed_source(const std::string& path) {
  if (!path.ends_with(".c") && !path.ends_with(".h")) return false;
  for (std::string_view d : kNotKernel)
    if (path.starts_with(d)) return false;
  return true;
}

std::string makefile_version(const std::string& makefile) {
  std::string version, patchlevel, sublevel;
  std::istringstream in(makefile);
  std::string line;
  for (int n = 0; n < 20 && std::getline(in, line); ++n) {
    auto value = [&](std::string_view key, std::string& out) {
      if (!line.starts_with(key)) return;
      size_t eq = line.find('=');
      if (eq == std::string::npos) return;
      size_t b = line.find_first_not_of(" \t", eq + 1);
      out = b == std::string::npos ? "" : line.substr(b, line.find_last_not_of(" \t\r") + 1 - b);
    };
    value("VERSION", version);
    value("PATCHLEVEL", patchlevel);
    value("SUBLEVEL", sublevel);
  }
  if (version.empty() || patchlevel.empty()) return "";
  std::string v = version + "." + patchlevel;
  if (!sublevel.empty() && sublevel != "0") v += "." + sublevel;
  return v;
}

std::unique_ptr<KernelTree> open_directory_tree(const std::string& dir, std::string& why) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    why = ec ? ec.message() : "not a directory";
    return nullptr;
  }
  std::optional<std::string> makefile = read_whole(dir + "/Makefile");
  std::string version = makefile ? makefile_version(*makefile) : "";
  if (version.empty() || !fs::is_directory(dir + "/kernel", ec)) {
    why = "no top-level Makefile with VERSION and PATCHLEVEL, or no kernel/ directory";
    return nullptr;
  }
  return std::make_unique<DirectoryTree>(dir, version);
}

std::unique_ptr<KernelTree> open_git_tree(const std::string& git_dir, const std::string& rev,
                                          const std::string& commit, std::string& why) {
  ProcessResult tree = run_git(git_dir, {"rev-parse", "--verify", "-q", commit + "^{tree}"});
  ProcessResult makefile = run_git(git_dir, {"cat-file", "blob", commit + ":Makefile"});
  ProcessResult kernel = run_git(git_dir, {"cat-file", "-t", commit + ":kernel"});
  std::string version = makefile.status == 0 ? makefile_version(makefile.out) : "";
  if (tree.status != 0 || version.empty() || kernel.status != 0 ||
      first_line(kernel.out) != "tree") {
    why = "no top-level Makefile with VERSION and PATCHLEVEL, or no kernel/ directory at " + rev;
    return nullptr;
  }
  auto t = std::make_unique<GitTree>(git_dir, rev, commit, first_line(tree.out), version);
  if (!t->list(why)) return nullptr;
  return t;
}

}  // namespace hangscope::suspects_detail
