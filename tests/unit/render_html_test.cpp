// The HTML report and the graph pictures it is made of.
#include <gtest/gtest.h>

#include "graph_picture.hpp"
#include "hangscope/render.hpp"
#include "support/made_capture.hpp"
#include "support/skip.hpp"

using namespace hangscope;
using hangscope::testing::MadeCapture;

namespace {

std::string html_of(const std::string& fixture) {
  Capture c;
  read_input(std::string(HANGSCOPE_FIXTURES) + "/" + fixture, "", c);
  Analysis a = analyze(c);
  return find_renderer("html")->render(Report{c, a}, RenderOptions{});
}

PictureGraph three_waits() {
  PictureGraph g;
  g.nodes = {{"jbd2:log-space", "0.29 threads", "#dd4444"},
             {"jbd2:checkpoint", "0.53 threads", "#4488dd"},
             {"jbd2:commit <jbd2/loop0-8>", "", "#44aa66"}};
  g.edges = {{0, 1, 0.29, "0.29"}, {1, 2, 0.53, ""}, {2, 0, 0.1, "cycle & back"}};
  return g;
}

}  // namespace

TEST(HtmlReport, StormCaptureHasEveryPart) {
  std::string html = html_of("capture/storm-overlayfs-ext4.capture");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("threads were blocked on average over 3.00 s (150 rounds)"),
            std::string::npos);
  EXPECT_NE(html.find("<table class=\"groups\">"), std::string::npos);
  EXPECT_NE(html.find(">jbd2:force-commit</td>"), std::string::npos);
  EXPECT_NE(html.find("class=\"hs-timeline\""), std::string::npos);
  EXPECT_NE(html.find("class=\"hs-area\""), std::string::npos);
  EXPECT_NE(html.find("Blocked threads first reached half their peak"), std::string::npos);
  EXPECT_NE(
      html.find("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" class=\"hs-flame\""),
      std::string::npos);
  EXPECT_NE(html.find("function hsFlame(svg)"), std::string::npos);
  // The waits-on verdict leads the page, and the graph is drawn as a picture whose
  // nodes include the storm's journal chain, never as DOT text.
  const size_t verdict = html.find("<p class=\"verdict\">");
  ASSERT_NE(verdict, std::string::npos);
  EXPECT_LT(verdict, html.find("class=\"overview\""));
  EXPECT_NE(html.find("wait on the jbd2 journal", verdict), std::string::npos);
  const size_t graph = html.find("<div class=\"graph\"");
  ASSERT_NE(graph, std::string::npos);
  std::string picture = html.substr(graph, html.find("</div>", graph) - graph);
  for (size_t p; (p = picture.find("&#45;")) != std::string::npos;)  // dot writes '-' so
    picture.replace(p, 5, "-");
  EXPECT_NE(picture.find("jbd2:force-commit"), std::string::npos);
  EXPECT_NE(picture.find("jbd2:commit"), std::string::npos);
  EXPECT_NE(picture.find("<svg"), std::string::npos);
  EXPECT_EQ(html.find("No waits-on graph"), std::string::npos);
  EXPECT_EQ(html.find("digraph"), std::string::npos);
}

TEST(HtmlReport, WithoutEdgesTheGraphIsLeftOutWithAReason) {
  MadeCapture m(true);
  uint32_t g = m.group("other:thing", "other");
  m.round();
  m.sample(m.stack("a;b;c", g), 1, 0);
  Analysis a = m.analyse();
  std::string html = find_renderer("html")->render(Report{m.capture, a}, RenderOptions{});
  EXPECT_NE(html.find("No waits-on graph: no wait group waits for another"), std::string::npos);
  EXPECT_EQ(html.find("<div class=\"graph\""), std::string::npos);
}

TEST(HtmlReport, SelfContainedWithoutNetwork) {
  std::string html = html_of("capture/storm-overlayfs-ext4.capture");
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("url(http"), std::string::npos);
  // The only URLs are XML namespaces, which are names, not downloads.
  for (size_t p = html.find("http"); p != std::string::npos; p = html.find("http", p + 1))
    EXPECT_TRUE(html.compare(p, 26, "http://www.w3.org/2000/svg") == 0 ||
                html.compare(p, 28, "http://www.w3.org/1999/xlink") == 0)
        << html.substr(p, 60);
}

TEST(HtmlReport, DumpWithoutRoundsLeavesTimelineOutAndSaysWhy) {
  std::string html = html_of("proc-stack/lkml-6.12-overlayfs-jbd2.txt");
  EXPECT_NE(html.find("No timeline: no input has rounds"), std::string::npos);
  EXPECT_EQ(html.find("class=\"hs-timeline\""), std::string::npos);
  EXPECT_NE(html.find("3 tasks in 3 wait groups"), std::string::npos)
      << html.substr(0, 2000);
  EXPECT_NE(html.find("class=\"hs-flame\""), std::string::npos);
}

TEST(HtmlReport, EmptyCaptureStillRenders) {
  MadeCapture m(true);
  m.round();
  Analysis a = m.analyse();
  std::string html = find_renderer("html")->render(Report{m.capture, a}, RenderOptions{});
  EXPECT_NE(html.find("No blocked tasks were seen."), std::string::npos);
  EXPECT_NE(html.find("No timeline: no thread was blocked in any round."), std::string::npos);
}

TEST(GraphPicture, BuiltinLayeredLayoutDrawsNodesInLayers) {
  GraphDrawing d = draw_graph(three_waits(), GraphLayout::builtin);
  EXPECT_EQ(d.engine, "builtin");
  EXPECT_EQ(d.svg.rfind("<svg", 0), 0u);
  EXPECT_NE(d.svg.find(">jbd2:log-space</text>"), std::string::npos) << d.svg;
  EXPECT_NE(d.svg.find("jbd2:commit &lt;jbd2/loop0-8&gt;"), std::string::npos);
  EXPECT_NE(d.svg.find(">cycle &amp; back</text>"), std::string::npos);
  EXPECT_EQ(std::count(d.svg.begin(), d.svg.end(), '\n') > 3, true);
  size_t edges = 0;
  for (size_t p = d.svg.find("class=\"hs-edge\""); p != std::string::npos;
       p = d.svg.find("class=\"hs-edge\"", p + 1))
    ++edges;
  EXPECT_EQ(edges, 3u);
  // The cycle is broken by drawing one edge backwards, arrow at its start.
  EXPECT_NE(d.svg.find("marker-start"), std::string::npos);
  // A chain: each node one layer below the one it waits on.
  PictureGraph chain;
  chain.nodes = {{"a", "", "#ffffff"}, {"b", "", "#ffffff"}, {"c", "", "#ffffff"}};
  chain.edges = {{1, 2, 1, ""}, {0, 1, 1, ""}};
  std::string svg = draw_layered(chain);
  auto y_of = [&](const std::string& label) {
    size_t t = svg.find(">" + label + "</text>");
    size_t y = svg.rfind(" y=\"", t);
    return std::stod(svg.substr(y + 4));
  };
  EXPECT_LT(y_of("a"), y_of("b"));
  EXPECT_LT(y_of("b"), y_of("c"));
}

TEST(GraphPicture, DotDrawsWhenInstalledAndNeverLeaksDotText) {
  if (!dot_available())
    HANGSCOPE_SKIP() << "Graphviz dot is not installed (Debian package graphviz)";
  GraphDrawing d = draw_graph(three_waits(), GraphLayout::automatic);
  EXPECT_EQ(d.engine, "dot");
  EXPECT_EQ(d.svg.rfind("<svg", 0), 0u) << d.svg.substr(0, 200);
  EXPECT_NE(d.svg.find(">jbd2:log&#45;space</text>"), std::string::npos) << d.svg;  // dot's escape
  EXPECT_NE(d.svg.find(">0.29 threads</text>"), std::string::npos);  // the second line
  EXPECT_NE(d.svg.find("jbd2:commit &lt;jbd2/loop0&#45;8&gt;"), std::string::npos) << d.svg;
  EXPECT_EQ(d.svg.find("digraph"), std::string::npos);
  EXPECT_EQ(d.svg.find("<?xml"), std::string::npos);
}
