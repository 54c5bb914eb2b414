#include "profile/TraceJsonScan.h"

#include <charconv>
#include <cstring>

namespace dfc::profile::jsonscan {
namespace {

constexpr uint64_t kOnes = 0x0101010101010101ull;
constexpr uint64_t kHighs = 0x8080808080808080ull;

// Bytes of `w` that end or break a raw string run: '"', '\\' or a control
// character (the buffer's zero padding among them). The lowest flagged byte
// is exact, which is the one asked for.
uint64_t stopBytes(uint64_t w) {
  auto zeroByte = [](uint64_t x) { return (x - kOnes) & ~x & kHighs; };
  const uint64_t control = (w - kOnes * 0x20) & ~w & kHighs;
  return zeroByte(w ^ (kOnes * '"')) | zeroByte(w ^ (kOnes * '\\')) | control;
}

// To the first byte that ends or breaks a run, 8 bytes at a time (the
// padding stops it before it can read past the buffer's zero bytes).
const char* runEnd(const char* p) {
  while (true) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    if (const uint64_t stop = stopBytes(w)) return p + (__builtin_ctzll(stop) >> 3);
    p += 8;
  }
}

bool hexDigit(char c) { return isDigit(c) || static_cast<unsigned char>((c | 0x20) - 'a') < 6; }

// `p` after the opening quote: past the closing quote, escapes validated.
bool skipStringBody(const char*& p) {
  while (true) {
    p = runEnd(p);
    if (*p == '"') {
      ++p;
      return true;
    }
    if (*p != '\\') return false;  // a control character
    const char e = p[1];
    if (e == 'u') {
      if (!hexDigit(p[2]) || !hexDigit(p[3]) || !hexDigit(p[4]) || !hexDigit(p[5])) return false;
      p += 6;
    } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
      p += 2;
    } else {
      return false;
    }
  }
}

const char* digitsEnd(const char* p) {
  while (isDigit(*p)) ++p;
  return p;
}

// JSON's number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
bool numberSpan(const char*& p) {
  const char* q = p;
  if (*q == '-') ++q;
  if (*q == '0') ++q;
  else if (isDigit(*q)) q = digitsEnd(q);
  else return false;
  if (*q == '.') {
    if (!isDigit(q[1])) return false;
    q = digitsEnd(q + 1);
  }
  if (*q == 'e' || *q == 'E') {
    ++q;
    if (*q == '+' || *q == '-') ++q;
    if (!isDigit(*q)) return false;
    q = digitsEnd(q);
  }
  p = q;
  return true;
}

constexpr double kPowersOf10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// Digits into a decimal mantissa (it wraps past 19 digits, which the caller
// checks by `digits`).
const char* addDigits(const char* p, uint64_t& mantissa, int& digits) {
  for (; isDigit(*p); ++p, ++digits) mantissa = mantissa * 10 + static_cast<uint64_t>(*p - '0');
  return p;
}

}  // namespace

bool rawString(const char*& p, std::string_view& out) {
  if (*p != '"') return false;
  const char* begin = p + 1;
  const char* end = runEnd(begin);
  if (*end != '"') return false;
  out = std::string_view(begin, static_cast<size_t>(end - begin));
  p = end + 1;
  return true;
}

bool string(const char*& p, std::string_view& raw, bool& escaped) {
  if (*p != '"') return false;
  const char* begin = ++p;
  const char* end = runEnd(begin);
  escaped = *end == '\\';
  if (*end == '"') {
    p = end + 1;
  } else if (!skipStringBody(p)) {
    return false;
  }
  raw = std::string_view(begin, static_cast<size_t>(p - 1 - begin));
  return true;
}

bool scalar(const char*& p, std::string_view& token) {
  const char* begin = p;
  if (*p == '"' || *p == '{' || *p == '[' || !skipValue(p)) return false;
  token = std::string_view(begin, static_cast<size_t>(p - begin));
  return true;
}

// One pass: the grammar checked and the mantissa gathered. A plain decimal
// ("1700000000000.250") takes Clinger's fast path: a mantissa up to 2^53 and
// a power of ten up to 1e22 are both exact doubles, so one division is
// correctly rounded. Anything else (exponents, long mantissas) goes to
// libstdc++'s correctly rounded from_chars; out of range (1e999, 1e-400) is
// refused here and left to simdjson's own verdict.
bool number(const char*& p, double& out) {
  const char* const begin = p;
  const char* q = p;
  const bool negative = *q == '-';
  if (negative) ++q;
  uint64_t mantissa = 0;
  int digits = 0;
  if (*q == '0') {
    ++q;
    ++digits;
  } else if (isDigit(*q)) {
    q = addDigits(q, mantissa, digits);
  } else {
    return false;
  }
  int fraction = 0;
  if (*q == '.') {
    if (!isDigit(q[1])) return false;
    const int before = digits;
    q = addDigits(q + 1, mantissa, digits);
    fraction = digits - before;
  }
  const bool exponent = *q == 'e' || *q == 'E';
  if (exponent) {
    ++q;
    if (*q == '+' || *q == '-') ++q;
    if (!isDigit(*q)) return false;
    q = digitsEnd(q);
  }
  p = q;
  if (!exponent && digits <= 19 && mantissa <= (uint64_t{1} << 53)) {
    const double value = static_cast<double>(mantissa) / kPowersOf10[fraction];
    out = negative ? -value : value;
    return true;
  }
  const auto res = std::from_chars(begin, q, out);
  return res.ec == std::errc() && res.ptr == q;
}

bool integer(const char*& p, int64_t& out) {
  const char* q = p;
  const bool negative = *q == '-';
  if (negative) ++q;
  const char* first = q;
  if (*q == '0') ++q;
  else q = digitsEnd(q);
  if (q == first || q - first > 18 || *q == '.' || *q == 'e' || *q == 'E' || isDigit(*q)) return false;
  int64_t value = 0;
  for (const char* d = first; d < q; ++d) value = value * 10 + (*d - '0');
  out = negative ? -value : value;
  p = q;
  return true;
}

bool skipValue(const char*& p, int depth) {
  const char c = *p;
  if (c == '"') return skipStringBody(++p);
  if (c == '-' || isDigit(c)) return numberSpan(p);
  if (c == 't' || c == 'f' || c == 'n') {
    const std::string_view word = c == 't' ? "true" : c == 'f' ? "false" : "null";
    if (std::memcmp(p, word.data(), word.size()) != 0) return false;
    p += word.size();
    return true;
  }
  if ((c != '{' && c != '[') || depth >= kMaxDepth) return false;
  const char close = c == '{' ? '}' : ']';
  ++p;
  skipSpace(p);
  if (*p == close) return ++p, true;
  while (true) {
    if (close == '}') {
      if (*p != '"' || !skipStringBody(++p)) return false;
      skipSpace(p);
      if (*p++ != ':') return false;
      skipSpace(p);
    }
    if (!skipValue(p, depth + 1)) return false;
    skipSpace(p);
    if (*p == close) return ++p, true;
    if (*p++ != ',') return false;
    skipSpace(p);
  }
}

}  // namespace dfc::profile::jsonscan
