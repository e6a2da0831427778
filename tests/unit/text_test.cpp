// The model's text helpers (hangscope/text.hpp): lines, trimming, whole numbers.
#include "hangscope/text.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hangscope {
namespace {

template <typename Range>
std::vector<std::string> all(Range r) {
  std::vector<std::string> out;
  for (std::string_view l : r) out.emplace_back(l);
  return out;
}

using Strings = std::vector<std::string>;

TEST(TextLines, EmptyTextHasNoLines) {
  EXPECT_EQ(all(text::Lines("")), Strings{});
  EXPECT_EQ(all(text::CompleteLines("")), Strings{});
}

TEST(TextLines, TrailingNewlineEndsTheLastLineWithoutAnEmptyOne) {
  EXPECT_EQ(all(text::Lines("a\nb\n")), (Strings{"a", "b"}));
  EXPECT_EQ(all(text::CompleteLines("a\nb\n")), (Strings{"a", "b"}));
}

TEST(TextLines, LastLineWithoutNewlineIsALineUnlessOnlyCompleteOnesAreAsked) {
  EXPECT_EQ(all(text::Lines("a\nb")), (Strings{"a", "b"}));
  EXPECT_EQ(all(text::CompleteLines("a\nb")), Strings{"a"});
  EXPECT_EQ(all(text::CompleteLines("cut")), Strings{});
}

TEST(TextLines, EmptyLinesAreKept) {
  EXPECT_EQ(all(text::Lines("\n\na\n\n")), (Strings{"", "", "a", ""}));
  EXPECT_EQ(all(text::Lines("\n")), Strings{""});
}

TEST(TextLines, CrlfLinesLoseTheirCarriageReturnOnly) {
  EXPECT_EQ(all(text::Lines("a\r\nb\r\n")), (Strings{"a", "b"}));
  EXPECT_EQ(all(text::Lines("a\r\r\nb\r")), (Strings{"a\r", "b"}));
  EXPECT_EQ(all(text::Lines("\r\n")), Strings{""});
  EXPECT_EQ(all(text::CompleteLines("a\r\nb\r")), Strings{"a"});
  EXPECT_EQ(all(text::Lines("in\rside\n")), Strings{"in\rside"});
}

TEST(TextLines, LinesViewTheTextItself) {
  const std::string s = "one\ntwo";
  std::vector<const char*> starts;
  for (std::string_view l : text::Lines(s)) starts.push_back(l.data());
  ASSERT_EQ(starts.size(), 2u);
  EXPECT_EQ(starts[0], s.data());
  EXPECT_EQ(starts[1], s.data() + 4);
}

TEST(TextTrim, TrimsSpacesAndTabsOnly) {
  EXPECT_EQ(text::trim(" \t a b \t"), "a b");
  EXPECT_EQ(text::trim_left(" \ta "), "a ");
  EXPECT_EQ(text::trim_right(" a\t "), " a");
  EXPECT_EQ(text::trim(" \t "), "");
  EXPECT_EQ(text::trim(""), "");
  EXPECT_EQ(text::trim("\na\r"), "\na\r");
}

TEST(TextWholeNumber, ReadsTheWholeFieldOnly) {
  uint64_t u = 0;
  EXPECT_TRUE(text::whole_number("4711", u));
  EXPECT_EQ(u, 4711u);
  EXPECT_FALSE(text::whole_number("", u));
  EXPECT_FALSE(text::whole_number("12 ", u));
  EXPECT_FALSE(text::whole_number(" 12", u));
  EXPECT_FALSE(text::whole_number("12x", u));
  EXPECT_FALSE(text::whole_number("12\n", u));
}

TEST(TextWholeNumber, SignOnlyForSignedTypes) {
  int i = 0;
  EXPECT_TRUE(text::whole_number("-3", i));
  EXPECT_EQ(i, -3);
  EXPECT_FALSE(text::whole_number("+3", i));
  unsigned n = 0;
  EXPECT_FALSE(text::whole_number("-3", n));
  EXPECT_FALSE(text::whole_number("-", i));
}

TEST(TextWholeNumber, OverflowIsNoNumber) {
  uint64_t u = 0;
  EXPECT_TRUE(text::whole_number("18446744073709551615", u));
  EXPECT_EQ(u, UINT64_MAX);
  EXPECT_FALSE(text::whole_number("18446744073709551616", u));
  int32_t i = 0;
  EXPECT_TRUE(text::whole_number("-2147483648", i));
  EXPECT_EQ(i, INT32_MIN);
  EXPECT_FALSE(text::whole_number("2147483648", i));
  uint8_t b = 0;
  EXPECT_FALSE(text::whole_number("256", b));
}

TEST(TextWholeNumber, OtherBases) {
  uint64_t u = 0;
  EXPECT_TRUE(text::whole_number("ffffffff81000000", u, 16));
  EXPECT_EQ(u, 0xffffffff81000000u);
  EXPECT_FALSE(text::whole_number("0x10", u, 16));  // the prefix is the caller's to cut
  EXPECT_FALSE(text::whole_number("19", u, 8));
}

TEST(TextWholeNumber, FloatingPoint) {
  double d = 0;
  EXPECT_TRUE(text::whole_number("2.5", d));
  EXPECT_EQ(d, 2.5);
  EXPECT_TRUE(text::whole_number("-0.25", d));
  EXPECT_EQ(d, -0.25);
  EXPECT_FALSE(text::whole_number("2.5s", d));
  EXPECT_FALSE(text::whole_number("", d));
  EXPECT_FALSE(text::whole_number("1e999", d));  // out of a double's range
  float f = 0;
  EXPECT_TRUE(text::whole_number("0.12", f));
  EXPECT_EQ(f, 0.12f);
}

TEST(TextKeyedLine, TheRestOfTheFirstLineThatBeginsWithTheKey) {
  const std::string_view status =
      "Name:\tcat\r\nState:\tD (disk sleep)\nnonvoluntary_ctxt_switches:\t5\n"
      "voluntary_ctxt_switches:\t7";
  EXPECT_EQ(text::keyed_line(status, "Name:"), "cat");  // first line, CRLF
  EXPECT_EQ(text::keyed_line(status, "State:"), "D (disk sleep)");
  EXPECT_EQ(text::keyed_line(status, "voluntary_ctxt_switches:"), "7");  // not inside another key
  EXPECT_EQ(text::keyed_line(status, "PPid:"), std::nullopt);
  EXPECT_EQ(text::keyed_line("", "Name:"), std::nullopt);
  EXPECT_EQ(text::keyed_line("Name:", "Name:"), "");
  EXPECT_EQ(text::keyed_line("Name: a\nName: b\n", "Name:"), "a");
}

}  // namespace
}  // namespace hangscope
