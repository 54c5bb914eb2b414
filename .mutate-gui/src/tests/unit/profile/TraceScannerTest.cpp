// The compact reader's fast path (the strict scanner, TraceChunkScan.cpp)
// against its simdjson On-Demand path: random traces in every form the
// reader takes (escapes, nested and flat args, string pids, times as strings,
// exponents, duplicate keys, odd spacing, every phase) and random byte edits
// of them must read to the same records, strings, names and counters, or
// fail with the same error, whichever path reads the chunks.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "profile/CompactTrace.h"

using namespace dfc::profile;

namespace {

class RandomJson {
 public:
  // `plain`: only the forms the scanner reads itself (no escapes, integer
  // pids, number times), so that byte edits test what it accepts.
  explicit RandomJson(unsigned seed, bool plain = false) : m_rng(seed), m_plain(plain) {}

  std::string trace(int events) {
    std::string out = pick({"{\"traceEvents\":[", "[", " {\n \"otherData\": {\"a\":1},\n \"traceEvents\" : [\n"});
    const bool object = out[0] != '[' || out.size() > 1;
    for (int i = 0; i < events; ++i) out += (i ? "," + space() : space()) + event();
    out += space() + "]";
    if (object) out += pick({"}", ",\"otherData\":{\"sections\":{\"1\":{\"name\":\"conv\"}}}}"});
    return out;
  }

 private:
  int below(int n) { return static_cast<int>(m_rng() % static_cast<unsigned>(n)); }
  std::string pick(std::initializer_list<const char*> options) {
    return *(options.begin() + below(static_cast<int>(options.size())));
  }
  std::string space() { return pick({"", "", "", " ", "\n  ", "\t"}); }

  std::string name() {
    if (m_plain) return pick({"\"hs0_op\"", "\"aten::linear\"", "\"\"", "\"\xc3\xa9t\xc3\xa9\""});
    return pick({"\"hs0_op\"", "\"hs1_op\"", "\"aten::linear\"", "\"a \\\"quoted\\\" name\"", "\"caf\\u00e9\"",
                 "\"\\u4e2d\"", "\"\"", "\"x/y\"", "12", "\"\xc3\xa9t\xc3\xa9\""});
  }
  std::string time() {
    if (m_plain) return pick({"0", "12.5", "1700000000000.000", "-3.25", "1e3", "0.1"});
    return pick({"0", "12.5", "1700000000000.000", "-3.25", "1e3", "2.5E-2", "\"12.5\"", "0.1", "123456789012345678901",
                 "9007199254740993", "-0", "17.000000000000001", "\"x\"", "1.7976931348623157e308", "5e-324"});
  }
  std::string id() {
    if (m_plain) return pick({"1", "2", "0", "-7", "4242"});
    return pick({"1", "2", "0", "-7", "\"3\"", "\"stream 7\"", "1.0", "123456789012345678901", "4242"});
  }
  std::string scalar() { return pick({"1", "\"s\"", "true", "false", "null", "-2.5e1", "\"a\\\\b\"", "\"\\/\""}); }
  std::string args() {
    switch (below(9)) {
      case 7:
        return pick({"{\"Input Dims\": [[\"section_id\", 1]], \"section_id\": 4}", "{\"section_id\": [1, 2], \"step\": 1}",
                     "{\"a\": [{\"section_id\": 3}], \"section_id\": 5}",
                     "{\"l\": [\"hypersection\", \"x\"], \"hypersection\": \"h\", \"section\": [\"s\"]}"});
      case 8: return "{\"hypersection\": {\"section_id\": 1}, \"section_id\": 2, \"section\": \"n\"}";
      case 0: return "{}";
      case 1: return "{\"section_id\":" + pick({"3", "\"4\"", "012", "1.0", "\"a\\\"b\""}) + ",\"step\":" + scalar() + "}";
      case 2: return "{\"hypersection\":" + pick({"\"hs2\"", "\"hs\\u0033\"", "\"\"", "5"}) + ", \"section\" : \"conv\"}";
      case 3: return "{\"in\":{\"section_id\":9},\"section_id\":" + scalar() + "}";
      case 4: return "{\"Input Dims\": [[64, 512], [512]], \"name\":" + name() + "}";
      case 5: return "{ \"section_id\" :1 ,\"section_id\":2, \"hypersection\":\"a\",\"hypersection\":\"b\" }";
      default: return "{\"name\":" + name() + ",\"value\":" + scalar() + ",\"sort_index\":" + id() + "}";
    }
  }
  std::string field() {
    switch (below(10)) {
      case 0: return "\"ph\":\"" + pick({"X", "X", "B", "E", "i", "I", "M", "C", "Q", "XX"}) + "\"";
      case 1: return "\"name\":" + name();
      case 2: return "\"cat\":" + (m_plain ? "\"forward,mirror\"" : pick({"\"forward\"", "\"host\"", "7"}));
      case 3: return "\"ts\":" + time();
      case 4: return "\"dur\":" + time();
      case 5: return "\"pid\":" + id();
      case 6: return "\"tid\":" + id();
      case 7: return "\"args\":" + (below(5) || m_plain ? args() : scalar());
      case 8: return m_plain ? "\"cat\":\"forward\"" : "\"p\\u0068\":\"X\"";
      default: return "\"extra\":" + pick({"[1,[2,{\"a\":[]}]]", "{\"k\":{}}", "\"v\"", "null"});
    }
  }
  std::string event() {
    static const char* const kPhases[] = {"X", "X", "X", "B", "E", "i", "M", "C"};
    std::vector<std::string> fields = {"\"ph\":\"" + std::string(kPhases[below(8)]) + "\"", "\"name\":" + name(),
                                       "\"ts\":" + time(), "\"pid\":" + id(), "\"tid\":" + id()};
    for (int extra = below(6); extra > 0; --extra) fields.push_back(field());
    std::shuffle(fields.begin(), fields.end(), m_rng);
    std::string out = "{" + space();
    for (size_t f = 0; f < fields.size(); ++f) out += (f ? "," + space() : "") + fields[f];
    return out + space() + "}";
  }

  std::mt19937 m_rng;
  bool m_plain = false;
};

std::string describe(const dfc::Expected<CompactTrace>& t) {
  if (!t) return "error: " + t.error().message();
  std::string out;
  auto str = [&](uint32_t id) { return std::string(t->string(id)); };
  for (const CompactEvent& e : t->events) {
    uint64_t ts = 0, dur = 0;
    std::memcpy(&ts, &e.ts, 8);  // bit for bit
    std::memcpy(&dur, &e.dur, 8);
    const CompactThread& th = t->threads[e.thread];
    out += std::string(1, e.ph) + " " + std::to_string(ts) + " " + std::to_string(dur) + " " + str(e.name) + "|" +
           str(e.cat) + "|" + str(e.colorKey) + "|" + str(e.section) + " " + std::to_string(th.pid) + "/" +
           std::to_string(th.tid) + " args " + std::to_string(e.args) + " flags " + std::to_string(e.flags) + "\n";
  }
  for (const std::string& s : t->strings) out += "string " + s + "\n";
  for (const auto& [pid, name] : t->processNames) out += "process " + std::to_string(pid) + " " + name + "\n";
  for (const auto& [key, name] : t->threadNames) out += "thread " + std::to_string(key.second) + " " + name + "\n";
  for (const auto& [key, index] : t->threadSortIndex) out += "sort " + std::to_string(index) + "\n";
  for (const CounterSeries& c : t->counters) out += "counter " + c.name + " " + std::to_string(c.values.size()) + "\n";
  for (const std::string& w : t->warnings) out += "warning " + w + "\n";
  return out;
}

// Both paths, in chunks of `chunkBytes`.
void checkSameBothWays(const std::string& json, uint64_t chunkBytes) {
  setTraceChunkBytes(chunkBytes);
  setTraceScanner(false);
  const std::string slow = describe(parseCompactTrace(json, "t.json"));
  setTraceScanner(true);
  const std::string fast = describe(parseCompactTrace(json, "t.json"));
  setTraceChunkBytes(0);
  INFO(json);
  REQUIRE(fast == slow);
}

}  // namespace

TEST_CASE("the scanner and simdjson read random traces to the same records", "[profile][scanner][property]") {
  for (unsigned seed = 1; seed <= 300; ++seed) {
    INFO("seed " << seed);
    RandomJson random(seed, seed % 2 == 0);
    const std::string json = random.trace(1 + static_cast<int>(seed % 40));
    checkSameBothWays(json, 60 + seed % 300);
    checkSameBothWays(json, 0);
  }
}

TEST_CASE("the scanner refuses what simdjson refuses: random byte edits read the same both ways", "[profile][scanner][property]") {
  const std::string alphabet = "{}[],:\"\\ 0123456789.eE+-tfnulsa\x01\xff";
  for (unsigned seed = 1; seed <= 600; ++seed) {
    INFO("seed " << seed);
    RandomJson random(seed, seed % 2 == 0);
    std::string json = random.trace(3 + static_cast<int>(seed % 12));
    std::mt19937 rng(seed);
    for (int edits = 1 + static_cast<int>(rng() % 3); edits > 0; --edits) {
      const size_t at = rng() % json.size();
      const char c = alphabet[rng() % alphabet.size()];
      switch (rng() % 3) {
        case 0: json.erase(at, 1); break;
        case 1: json.insert(json.begin() + static_cast<std::ptrdiff_t>(at), c); break;
        default: json[at] = c;
      }
    }
    checkSameBothWays(json, 50 + seed % 200);
  }
}

TEST_CASE("the scanner's numbers round as simdjson's do", "[profile][scanner]") {
  for (const char* number : {"0.1", "1700000000000.123", "9007199254740993", "9007199254740992.5", "1e22", "1e23",
                             "123456789012345678901234567890", "4.9406564584124654e-324", "2.2250738585072011e-308",
                             "0.30000000000000004", "1234567.8901234567", "-0.0", "1e-7", "1E+2"}) {
    const std::string json = std::string("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":") + number +
                             ",\"dur\":" + number + "}]";
    INFO(json);
    checkSameBothWays(json, 0);
  }
}
