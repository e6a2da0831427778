// The cache file is text, a file's line then its definitions:
//   hangscope-definitions 1 <key>
//   F<TAB>fs/overlayfs/copy_up.c
//   ovl_copy_up_metadata<TAB>663<TAB>729<TAB>s
// Reading it back keeps only the names asked for: a kernel has some 700,000 definitions,
// and a look-up asks for a few hundred.
#include "definition_index.hpp"

#include <unistd.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string_view>
#include <unordered_set>

#include "definitions.hpp"
#include "source_text.hpp"

namespace hangscope::suspects_detail {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kMagic = "hangscope-definitions 1 ";

std::string cache_path(const std::string& dir, const std::string& key) {
  return dir + "/definitions/" + key + ".idx";
}

bool load(const std::string& path, const std::string& key, const std::set<std::string>& names,
          Definitions& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  const std::string text = std::move(ss).str();
  std::string_view all(text);
  size_t eol = all.find('\n');
  if (eol == std::string_view::npos || all.substr(0, eol) != std::string(kMagic) + key)
    return false;
  std::unordered_set<std::string_view> wanted(names.begin(), names.end());
  std::string_view file;
  for (size_t p = eol + 1; p < all.size();) {
    size_t e = all.find('\n', p);
    if (e == std::string_view::npos) e = all.size();
    std::string_view line = all.substr(p, e - p);
    p = e + 1;
    if (line.starts_with("F\t")) {
      file = line.substr(2);
      continue;
    }
    size_t t1 = line.find('\t');
    if (t1 == std::string_view::npos || !wanted.count(line.substr(0, t1))) continue;
    size_t t2 = line.find('\t', t1 + 1), t3 = line.find('\t', t2 + 1);
    if (t3 == std::string_view::npos) continue;
    out[std::string(line.substr(0, t1))].push_back(
        Location{std::string(file), number(line.substr(t1 + 1, t2 - t1 - 1)),
                 number(line.substr(t2 + 1, t3 - t2 - 1)), line.substr(t3 + 1) == "s"});
  }
  return true;
}

// Written beside its final name and renamed into place: a reader never sees half of it.
void save(const std::string& path, const std::string& key, const std::vector<std::string>& files,
          const std::vector<std::string>& chunks) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  std::string tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!f) return;
    f << kMagic << key << '\n';
    for (size_t i = 0; i < files.size(); ++i)
      if (!chunks[i].empty()) f << "F\t" << files[i] << '\n' << chunks[i];
    if (!f) {
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) fs::remove(tmp, ec);
}

// Older indexes of the same directory (its files changed since): replaced by this one.
void remove_stale(const std::string& dir, const std::string& key) {
  if (!key.starts_with("dir-")) return;
  std::string prefix = key.substr(0, key.rfind('-') + 1);
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir + "/definitions", ec)) {
    std::string name = e.path().filename().string();
    if (name.starts_with(prefix) && name != key + ".idx") fs::remove(e.path(), ec);
  }
}

}  // namespace

Definitions definitions_of(const KernelTree& tree, const std::set<std::string>& names,
                           const IndexOptions& options, bool& cached) {
  Definitions out;
  const std::string key = tree.cache_key();
  const std::string path = options.cache_dir.empty() ? "" : cache_path(options.cache_dir, key);
  cached = !path.empty() && load(path, key, names, out);
  if (cached) return out;
  out.clear();
  const std::vector<std::string> files = tree.source_files();
  std::vector<std::string> chunks(files.size());
  std::mutex found_mutex;
  tree.read_files(
      files, options.threads,
      [&](size_t i, const std::string& text) {
        std::string& chunk = chunks[i];
        for (const Definition& d : scan_definitions(text)) {
          chunk.append(d.name);
          chunk += '\t';
          chunk += std::to_string(d.begin);
          chunk += '\t';
          chunk += std::to_string(d.end);
          chunk += d.is_static ? "\ts\n" : "\tg\n";
          if (names.count(std::string(d.name))) {
            std::lock_guard lock(found_mutex);
            out[std::string(d.name)].push_back(Location{files[i], d.begin, d.end, d.is_static});
          }
        }
      },
      [&](size_t done) {
        if (options.progress) options.progress(done, files.size());
      });
  // The order of the files, whatever order the threads read them in.
  for (auto& [name, locations] : out)
    std::sort(locations.begin(), locations.end(), [](const Location& a, const Location& b) {
      return a.file != b.file ? a.file < b.file : a.begin < b.begin;
    });
  if (!path.empty()) {
    save(path, key, files, chunks);
    remove_stale(options.cache_dir, key);
  }
  return out;
}

}  // namespace hangscope::suspects_detail
