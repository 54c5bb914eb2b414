#include "support/JsonWriter.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace dfc::support {

void JsonWriter::separator() {
  if (m_afterKey) {
    m_afterKey = false;
    return;
  }
  if (!m_hasItem.empty()) {
    if (m_hasItem.back()) m_out += ',';
    m_hasItem.back() = true;
  }
}

JsonWriter& JsonWriter::beginObject() {
  separator();
  m_out += '{';
  m_hasItem.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::endObject() {
  m_out += '}';
  m_hasItem.pop_back();
  return *this;
}

JsonWriter& JsonWriter::beginArray() {
  separator();
  m_out += '[';
  m_hasItem.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::endArray() {
  m_out += ']';
  m_hasItem.pop_back();
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  separator();
  appendEscaped(m_out, k);
  m_out += ':';
  m_afterKey = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  separator();
  appendEscaped(m_out, s);
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  separator();
  m_out += json;
  return *this;
}

JsonWriter& JsonWriter::value(double d) {
  separator();
  if (!std::isfinite(d)) {
    m_out += "null";
    return *this;
  }
  char buf[32];
  auto res = std::to_chars(buf, buf + sizeof buf, d);  // shortest round-trip form
  m_out.append(buf, res.ptr);
  return *this;
}

JsonWriter& JsonWriter::value(int64_t i) {
  separator();
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof buf, i);
  m_out.append(buf, res.ptr);
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  separator();
  m_out += b ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  separator();
  m_out += "null";
  return *this;
}

void JsonWriter::appendEscaped(std::string& out, std::string_view s) {
  out += '"';
  // Runs of characters that need no escaping are appended in one go.
  size_t run = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20) continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: {  // other control characters
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      }
    }
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

}  // namespace dfc::support
