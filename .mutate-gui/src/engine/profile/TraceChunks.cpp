#include "profile/TraceChunks.h"

#include <algorithm>

namespace dfc::profile {
namespace {

constexpr size_t kWindow = 1 << 16;

bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

// Reads the text window by window, one byte at a time.
class ByteStream {
 public:
  ByteStream(const TraceText& text, uint64_t at) : m_text(text), m_at(at) {}
  std::optional<char> next() {
    if (m_pos == m_len) {
      const int64_t got = m_text.read(m_at, kWindow, m_window);
      if (got <= 0) return std::nullopt;
      m_pos = 0;
      m_len = static_cast<size_t>(got);
      m_at += static_cast<uint64_t>(got);
    }
    ++m_offset;
    return m_window[m_pos++];
  }
  uint64_t offset() const { return m_offset + m_base; }  // of the next byte
  void setBase(uint64_t base) { m_base = base; }

 private:
  const TraceText& m_text;
  uint64_t m_at;
  char m_window[kWindow];
  size_t m_pos = 0, m_len = 0;
  uint64_t m_offset = 0, m_base = 0;
};

// Object form: walks the top-level object's keys, skipping their values
// (strings and nesting respected), until "traceEvents" is followed by '['.
std::optional<EventsSpan> findEventsKey(ByteStream& in) {
  int depth = 1;
  bool inString = false, escape = false, keyReady = false;
  std::string text;
  while (auto c = in.next()) {
    if (inString) {
      if (escape) escape = false;
      else if (*c == '\\') escape = true;
      else if (*c == '"') inString = false, keyReady = depth == 1;
      if (inString && text.size() < 16) text += *c;
      continue;
    }
    if (isSpace(*c)) continue;
    if (*c == ':' && keyReady) {
      while ((c = in.next()) && isSpace(*c)) {
      }
      if (!c) return std::nullopt;
      if (*c == '[' && text == "traceEvents") return EventsSpan{in.offset(), true};
    }
    keyReady = false;
    if (*c == '"') inString = true, text.clear();
    else if (*c == '{' || *c == '[') ++depth;
    else if ((*c == '}' || *c == ']') && --depth == 0) return std::nullopt;
  }
  return std::nullopt;
}

// The first event start (a '{' after `}` `,`) at or after `at`, or nullopt.
std::optional<uint64_t> seamAfter(const TraceText& text, uint64_t at, uint64_t limit) {
  ByteStream in(text, at);
  in.setBase(at);
  int state = 0;  // 0: looking for '}', 1: saw '}' (ws), 2: saw ',' (ws)
  while (in.offset() < limit) {
    const auto c = in.next();
    if (!c) return std::nullopt;
    if (state > 0 && isSpace(*c)) continue;
    if (state == 2 && *c == '{') return in.offset() - 1;
    state = *c == '}' ? 1 : (state == 1 && *c == ',') ? 2 : 0;
  }
  return std::nullopt;
}

}  // namespace

std::optional<EventsSpan> locateEvents(const TraceText& text) {
  ByteStream in(text, 0);
  std::optional<char> c;
  while ((c = in.next()) && isSpace(*c)) {
  }
  if (!c) return std::nullopt;
  if (*c == '[') return EventsSpan{in.offset(), false};
  if (*c != '{') return std::nullopt;
  return findEventsKey(in);
}

std::vector<uint64_t> chunkStarts(const TraceText& text, uint64_t start, uint64_t chunkBytes) {
  std::vector<uint64_t> starts{start};
  chunkBytes = std::max<uint64_t>(chunkBytes, 1);
  while (true) {
    const uint64_t target = starts.back() + chunkBytes;
    if (target + chunkBytes / 4 >= text.size()) break;  // a short last chunk joins the one before
    // An event longer than a whole chunk: look at most another chunk further.
    const auto seam = seamAfter(text, target, std::min(text.size(), target + chunkBytes));
    if (!seam) break;
    starts.push_back(*seam);
  }
  return starts;
}

}  // namespace dfc::profile
