// Cut-off traces: what is complete loads, with a warning naming the byte
// where reading stopped; malformed JSON elsewhere stays an error.
#include <catch2/catch.hpp>

#include "profile/ChromeTrace.h"
#include "profile/CompactTrace.h"
#include "profile/TraceRepair.h"

using namespace dfc::profile;

namespace {

// n complete slices on one row, names and args holding braces and quotes.
std::string slices(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    if (i) out += ",\n";
    out += "{\"ph\":\"X\",\"name\":\"op}] \\\"" + std::to_string(i) + "\\\"\",\"pid\":1,\"tid\":2,\"ts\":" +
           std::to_string(i * 10) + ",\"dur\":5,\"args\":{\"note\":\"{[\"}}";
  }
  return out;
}

std::string nameOf(const CompactTrace& t, size_t i) { return std::string(t.string(t.events[i].name)); }

}  // namespace

TEST_CASE("an array trace without its closing bracket loads every event, with a warning", "[trace][repair]") {
  const std::string text = "[" + slices(40) + ",\n";
  auto compact = parseCompactTrace(text, "open.json");
  REQUIRE(compact);
  REQUIRE(compact->events.size() == 40);
  CHECK(nameOf(*compact, 39) == "op}] \"39\"");
  REQUIRE(compact->warnings.size() == 1);
  const size_t lastBrace = text.rfind('}') + 1;
  CHECK_THAT(compact->warnings[0], Catch::Contains("open.json") && Catch::Contains("40 complete events") &&
                                       Catch::Contains("byte " + std::to_string(lastBrace)));
  auto dom = parseChromeTrace(text, "open.json");
  REQUIRE(dom);
  CHECK(dom->events.size() == 40);
  CHECK(dom->warnings == compact->warnings);
}

TEST_CASE("a trace cut off mid-event keeps every slice before the cut", "[trace][repair]") {
  const std::string whole = "{\"traceEvents\":[" + slices(25) + "],\"otherData\":{\"model\":\"x\"}}";
  // Cut inside the 21st event, in the middle of its quoted, brace-holding name.
  const size_t cutAt = whole.find("op}] \\\"20") + 3;
  const std::string cut = whole.substr(0, cutAt);
  auto compact = parseCompactTrace(cut, "cut.json");
  REQUIRE(compact);
  REQUIRE(compact->events.size() == 20);
  for (size_t i = 0; i < 20; ++i) CHECK(compact->events[i].ts == Approx(10.0 * static_cast<double>(i)));
  REQUIRE(compact->warnings.size() == 1);
  const auto found = findCompletePrefix(cut);
  REQUIRE(found);
  CHECK(found->events == 20);
  CHECK(found->closing == "]}");
  CHECK(cut[found->keepBytes - 1] == '}');
  CHECK_THAT(compact->warnings[0], Catch::Contains("byte " + std::to_string(found->keepBytes) + " of " +
                                                   std::to_string(cut.size())));
  auto dom = parseChromeTrace(cut, "cut.json");
  REQUIRE(dom);
  CHECK(dom->events.size() == 20);
}

TEST_CASE("a trace cut after its events array keeps them all and closes the object", "[trace][repair]") {
  const std::string whole = "{\"traceEvents\":[" + slices(5) + "],\"otherData\":{\"model\":\"x\"}}";
  const std::string cut = whole.substr(0, whole.find("\"model\"") + 4);
  const auto found = findCompletePrefix(cut);
  REQUIRE(found);
  CHECK(found->closing == "}");
  auto compact = parseCompactTrace(cut, "cut.json");
  REQUIRE(compact);
  CHECK(compact->events.size() == 5);
  CHECK(compact->warnings.size() == 1);
}

TEST_CASE("whole traces get no warning, malformed ones stay errors naming the byte", "[trace][repair]") {
  const std::string whole = "[" + slices(3) + "]";
  CHECK_FALSE(findCompletePrefix(whole));
  auto ok = parseCompactTrace(whole, "ok.json");
  REQUIRE(ok);
  CHECK(ok->warnings.empty());
  // Closed, but broken in the middle: not a cut, an error.
  std::string broken = "[" + slices(3) + "]";
  const size_t bad = broken.find("\"dur\":5", broken.find("\"ts\":10"));
  broken.replace(bad, 7, "\"dur\" 5");
  CHECK_FALSE(findCompletePrefix(broken));
  auto error = parseCompactTrace(broken, "bad.json");
  REQUIRE_FALSE(error);
  CHECK_THAT(error.error().message(), Catch::Contains("bad.json") && Catch::Contains("at byte"));
  // Not JSON at all: the error still says where.
  auto notJson = parseCompactTrace("hello", "hello.json");
  REQUIRE_FALSE(notJson);
  CHECK_THAT(notJson.error().message(), Catch::Contains("hello.json: invalid JSON at byte 0"));
  // Cut before the first complete event: nothing to keep, an error.
  CHECK_FALSE(parseCompactTrace("{\"traceEv", "early.json"));
  CHECK_FALSE(parseCompactTrace("{\"traceEvents\":[{\"ph\":\"X\",", "early.json"));
}
