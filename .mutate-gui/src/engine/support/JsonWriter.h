#pragma once
// A small streaming JSON writer (objects, arrays, numbers, escaped strings).
// Reading JSON goes through simdjson; writing is this.
#include <string>
#include <string_view>
#include <vector>

namespace dfc::support {

class JsonWriter {
 public:
  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  JsonWriter& key(std::string_view k);  // inside an object, before each value
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(double d);           // non-finite values are written as null
  JsonWriter& value(int64_t i);
  JsonWriter& value(int i) { return value(static_cast<int64_t>(i)); }
  JsonWriter& value(bool b);
  JsonWriter& null();
  JsonWriter& raw(std::string_view json);  // a value already written as JSON, as it is
  // Shorthand for key(k).value(v).
  template <typename T>
  JsonWriter& field(std::string_view k, const T& v) { return key(k).value(v); }

  const std::string& str() const { return m_out; }
  std::string take() { return std::move(m_out); }
  void reserve(size_t n) { m_out.reserve(n); }

  static void appendEscaped(std::string& out, std::string_view s);

 private:
  void separator();
  std::string m_out;
  std::vector<bool> m_hasItem;  // per open container: has it a previous item?
  bool m_afterKey = false;
};

}  // namespace dfc::support
