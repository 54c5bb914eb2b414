#pragma once
// A strict scanner for the JSON subset trace writers emit, over a buffer whose
// padding after the end is zero (PaddedBuffer): the zero byte is accepted by
// no rule, so it stops every loop without a bounds check. Each function
// advances `p` past what it took and returns false on anything outside the
// subset (an escape where a raw view is wanted, a deep nesting, a number a
// double cannot hold) as well as on invalid JSON: the caller then hands the
// text to simdjson, which reads the rare forms and words the exact error.
// Being stricter than simdjson is always safe; accepting more never is, so
// every rule here is JSON's own (RFC 8259), checked in full.
#include <cstdint>
#include <string_view>

namespace dfc::profile::jsonscan {

inline bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
inline bool isDigit(char c) { return static_cast<unsigned char>(c - '0') < 10; }
inline void skipSpace(const char*& p) {
  while (isSpace(*p)) ++p;
}

// A string without escapes, `p` on its opening quote: its contents as they
// stand in the buffer. False on an escape (unescaping is simdjson's job) or a
// control character.
bool rawString(const char*& p, std::string_view& out);
// Any string, escapes validated, `p` on its opening quote: its contents as
// they stand (still escaped), and whether they hold an escape.
bool string(const char*& p, std::string_view& raw, bool& escaped);
// A number in JSON's grammar, as a double rounded as simdjson rounds it
// (correctly); false when it does not fit a finite double.
bool number(const char*& p, double& out);
// An integer in JSON's grammar that fits int64 with room to spare (up to 18
// digits); false for fractions, exponents and anything longer.
bool integer(const char*& p, int64_t& out);
// Any JSON value, validated: strings (escapes checked), numbers, literals,
// and arrays and objects nested up to `kMaxDepth` deep.
bool skipValue(const char*& p, int depth = 0);
// A number or a literal (true, false, null), validated: its text.
bool scalar(const char*& p, std::string_view& token);
inline constexpr int kMaxDepth = 64;

}  // namespace dfc::profile::jsonscan
