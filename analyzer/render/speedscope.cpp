// speedscope's file format (https://www.speedscope.app/file-format-schema.json): shared
// frames, then sampled profiles of root-first stacks with weights in samples; one
// profile per wait group (heaviest first) or one per input. Written as a stream (a
// DOM of every stack would cost more than the model), names escaped by nlohmann::json.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <unordered_map>

#include "flame_svg.hpp"
#include "renderers.hpp"
#include "xml_text.hpp"

namespace hangscope::render {

namespace {

using Out = std::back_insert_iterator<std::string>;

std::string json_string(std::string_view raw) {
  return nlohmann::json(valid_utf8(raw))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

struct Profile {
  std::string name;
  std::vector<std::pair<StackId, uint64_t>> stacks;  // heaviest first
  uint64_t total = 0;
};

class SpeedscopeRenderer final : public Renderer {
 public:
  std::string_view name() const override { return "speedscope"; }
  std::string_view description() const override {
    return "speedscope JSON: one profile per wait group (or per input), weights in samples";
  }
  uint8_t needs() const override { return kNeedSummary | kNeedStacks; }
  std::string render(const Report& report, const RenderOptions& options) const override;
};

// Each profile's stacks, heaviest first (the lower stack id among equals).
std::vector<Profile> profiles(const Report& r, ProfileSplit split) {
  std::vector<Profile> out;
  const Summary& sum = r.summary();
  if (split == ProfileSplit::group) {
    const Classification& cls = r.classification();
    std::vector<size_t> index(cls.groups.size(), SIZE_MAX);
    for (const GroupSummary& g : sum.groups) {
      index[g.group] = out.size();
      out.push_back({cls.groups[g.group].name, {}, 0});
    }
    if (!cls.has_variants()) {
      for (const auto& [stack, w] : sum.stack_weights)
        out[index[cls.group(stack)]].stacks.emplace_back(stack, w);
    } else {  // a sample's state can put it in another group than its stack's
      std::vector<std::unordered_map<StackId, uint64_t>> by_group(out.size());
      for (const TaskSample& s : r.capture.samples)
        by_group[index[cls.group(s)]][s.stack] += s.weight;
      for (size_t i = 0; i < out.size(); ++i)
        out[i].stacks.assign(by_group[i].begin(), by_group[i].end());
    }
  } else {
    const Capture& c = r.capture;
    std::vector<std::unordered_map<StackId, uint64_t>> by_source(c.sources.size());
    for (const TaskSample& s : c.samples) by_source[s.source][s.stack] += s.weight;
    for (size_t i = 0; i < c.sources.size(); ++i)
      out.push_back({c.sources[i].path, {by_source[i].begin(), by_source[i].end()}, 0});
  }
  for (Profile& p : out) {
    std::sort(p.stacks.begin(), p.stacks.end(), [](auto& a, auto& b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    for (auto& [stack, w] : p.stacks) p.total += w;
  }
  return out;
}

std::string SpeedscopeRenderer::render(const Report& r, const RenderOptions& opt) const {
  const StackTable& st = r.capture.stacks;
  std::vector<Profile> ps = profiles(r, opt.split);

  // Frames used by any profile, numbered in order of first use; index 0 stands for the
  // empty stack (a task whose kernel stack could not be read).
  std::vector<uint32_t> frame_index(st.frame_count(), UINT32_MAX);
  std::vector<FrameId> frames;
  for (const Profile& p : ps)
    for (auto& [stack, w] : p.stacks)
      for (FrameId f : st.stack(stack))
        if (frame_index[f] == UINT32_MAX) {
          frame_index[f] = static_cast<uint32_t>(frames.size() + 1);
          frames.push_back(f);
        }

  std::string json;
  Out out(json);
  fmt::format_to(out,
                 "{{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
                 "\"shared\":{{\"frames\":[\n{{\"name\":\"[no stack]\"}}");
  for (FrameId f : frames) {
    fmt::format_to(out, ",\n{{\"name\":{}", json_string(st.function(f)));
    std::string_view mod = st.module(f);
    if (!mod.empty())
      fmt::format_to(out, ",\"file\":{}", json_string(mod));
    else if (st.frame(f).kind == FrameKind::kernel)
      json += ",\"file\":\"[kernel]\"";
    json += '}';
  }
  json += "]},\n\"profiles\":[";
  for (size_t i = 0; i < ps.size(); ++i) {
    const Profile& p = ps[i];
    fmt::format_to(out,
                   "{}\n{{\"type\":\"sampled\",\"name\":{},\"unit\":\"none\",\"startValue\":0,"
                   "\"endValue\":{},\n\"samples\":[",
                   i ? "," : "", json_string(p.name), p.total);
    for (size_t k = 0; k < p.stacks.size(); ++k) {
      auto frames_of = st.stack(p.stacks[k].first);
      json += k ? ",[" : "[";
      if (frames_of.empty()) json += '0';
      for (size_t j = frames_of.size(); j-- > 0;)  // root first
        fmt::format_to(out, "{}{}", j + 1 == frames_of.size() ? "" : ",",
                       frame_index[frames_of[j]]);
      json += ']';
    }
    json += "],\n\"weights\":[";
    for (size_t k = 0; k < p.stacks.size(); ++k)
      fmt::format_to(out, "{}{}", k ? "," : "", p.stacks[k].second);
    json += "]}";
  }
  fmt::format_to(out, "],\n\"name\":{},\"activeProfileIndex\":0,\"exporter\":{}}}\n",
                 json_string(picture_title(r, opt)), json_string("hangscope " + opt.version));
  return json;
}

}  // namespace

const Renderer& speedscope_renderer() {
  static const SpeedscopeRenderer r;
  return r;
}

}  // namespace hangscope::render
