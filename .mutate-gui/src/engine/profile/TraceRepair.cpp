#include "profile/TraceRepair.h"

#include <vector>

namespace dfc::profile {
namespace {

std::string closersFor(const std::vector<char>& stack) {
  std::string out;
  for (auto it = stack.rbegin(); it != stack.rend(); ++it) out += *it == '[' ? ']' : '}';
  return out;
}

class CutScanner {
 public:
  std::optional<TraceCut> scan(std::string_view json) {
    for (size_t i = 0; i < json.size(); ++i) {
      const char c = json[i];
      if (m_inString) {
        readStringByte(c);
        continue;
      }
      if (c == '"') {
        m_inString = true;
        m_string.clear();
      } else if (c == '{' || c == '[') {
        open(c, i);
      } else if (c == '}' || c == ']') {
        if (m_stack.empty()) return std::nullopt;  // stray closer: malformed, not cut off
        m_stack.pop_back();
        closed(i);
      }
    }
    if (m_stack.empty() || !m_cut) return std::nullopt;
    return m_cut;
  }

 private:
  void readStringByte(char c) {
    if (m_escape) {
      m_escape = false;
    } else if (c == '\\') {
      m_escape = true;
    } else if (c == '"') {
      m_inString = false;
      if (m_stack.size() == 1) m_lastKey = m_string;  // a key (or value) of the root object
      return;
    }
    if (m_string.size() < 16) m_string += c;
  }

  void open(char c, size_t i) {
    m_stack.push_back(c);
    const bool eventsArray = m_eventsDepth == 0 && c == '[' &&
                             (m_stack.size() == 1 || (m_stack.size() == 2 && m_stack[0] == '{' && m_lastKey == "traceEvents"));
    if (eventsArray) {
      m_eventsDepth = m_stack.size();
      m_cut = TraceCut{i + 1, closersFor(m_stack), 0};
    }
  }

  void closed(size_t i) {
    if (m_eventsDepth == 0) return;
    if (m_stack.size() == m_eventsDepth) {  // an event ended
      m_cut = TraceCut{i + 1, closersFor(m_stack), m_cut->events + 1};
    } else if (m_stack.size() + 1 <= m_eventsDepth && m_stack.size() <= 1) {
      // The events array, or a later value of the root object, ended.
      m_cut = TraceCut{i + 1, closersFor(m_stack), m_cut->events};
    }
  }

  std::vector<char> m_stack;
  std::optional<TraceCut> m_cut;
  std::string m_string;
  std::string m_lastKey;
  size_t m_eventsDepth = 0;
  bool m_inString = false;
  bool m_escape = false;
};

}  // namespace

std::optional<TraceCut> findCompletePrefix(std::string_view json) { return CutScanner().scan(json); }

std::string repairedTrace(std::string_view json, const TraceCut& cut) {
  std::string out(json.substr(0, cut.keepBytes));
  out += cut.closing;
  return out;
}

std::string cutWarning(const std::string& source, const TraceCut& cut, size_t totalBytes) {
  return source + ": trace cut off: read " + std::to_string(cut.events) + " complete events up to byte " +
         std::to_string(cut.keepBytes) + " of " + std::to_string(totalBytes) + "; what follows is incomplete and left out";
}

}  // namespace dfc::profile
