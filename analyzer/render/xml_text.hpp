// Text that goes into XML, HTML, JSON and DOT outputs. Names come from kernels, dumps and
// other tools: they may hold invalid UTF-8 or control bytes, which are shown as "\xNN"
// (never fatal, never silently dropped), and XML's special characters are escaped.
#pragma once

#include <string>
#include <string_view>

namespace hangscope::render {

// `s` as valid UTF-8 without control characters: each invalid or control byte becomes
// the four characters "\xNN".
std::string valid_utf8(std::string_view s);

// Code points in valid UTF-8.
size_t count_chars(std::string_view utf8);
// The first `n` code points of valid UTF-8.
std::string_view first_chars(std::string_view utf8, size_t n);

// Appends valid UTF-8 with &, <, >, " and ' escaped (for text and attribute values).
void append_xml(std::string& out, std::string_view valid);
// valid_utf8 then append_xml.
void append_xml_text(std::string& out, std::string_view raw);
std::string xml_text(std::string_view raw);

// The inside of a DOT string literal: valid UTF-8 (valid_utf8), quotes and backslashes
// escaped, line breaks as DOT's "\n".
std::string dot_escaped(std::string_view raw);

// A name fitted into `chars` characters: whole when it fits, else cut with "..";
// empty when fewer than three characters fit. `valid` is valid UTF-8.
std::string fit_label(std::string_view valid, size_t chars);

}  // namespace hangscope::render
