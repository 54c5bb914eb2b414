// Issue 36: strtod and from_chars read "nan" and "inf" as numbers, so a trace
// with a "nan" timestamp loaded and sorted, nested and scaled by NaN: an
// empty timeline reading "range 0 .. nan, 0 slices". A time that is present
// must be a finite number; both readers refuse one that is not with one line
// naming the file, the event and the value.
#include <catch2/catch.hpp>

#include "profile/ChromeTrace.h"
#include "profile/CompactTrace.h"
#include "profile/RawArgs.h"

using namespace dfc::profile;

namespace {

std::string traceWith(const std::string& event) {
  return R"({"traceEvents":[{"ph":"X","name":"ok","pid":1,"tid":1,"ts":0,"dur":5},)" + event + "]}";
}

void refusedByBoth(const std::string& event, const std::string& expected) {
  INFO(event);
  const std::string json = traceWith(event);
  auto compact = parseCompactTrace(json, "t.json");
  REQUIRE_FALSE(compact);
  CHECK_THAT(compact.error().message(), Catch::Contains("t.json") && Catch::Contains(expected));
  auto dom = parseChromeTrace(json, "t.json");
  REQUIRE_FALSE(dom);
  CHECK_THAT(dom.error().message(), Catch::Contains("t.json") && Catch::Contains(expected));
}

}  // namespace

TEST_CASE("a trace time that is not a finite number is refused, naming the event", "[profile][numbers]") {
  refusedByBoth(R"({"ph":"X","name":"a","pid":1,"tid":1,"ts":"nan","dur":5})",
                "event 1: \"ts\" is nan, not a finite number");
  refusedByBoth(R"({"ph":"X","name":"a","pid":1,"tid":1,"ts":3,"dur":"inf"})", "\"dur\" is inf");
  refusedByBoth(R"({"ph":"B","name":"a","pid":1,"tid":1,"ts":"-Infinity"})", "\"ts\" is -Infinity");
  refusedByBoth(R"({"ph":"i","name":"a","pid":1,"tid":1,"ts":"NaN"})", "\"ts\" is NaN");
  refusedByBoth(R"({"ph":"C","name":"loss","pid":1,"ts":"nan","args":{"loss":1}})", "\"ts\" is nan");
  refusedByBoth(R"({"ph":"X","name":"a","pid":1,"tid":1,"ts":"twelve","dur":5})", "\"ts\" is twelve");
}

TEST_CASE("finite times, as numbers or strings, and absent ones still read", "[profile][numbers]") {
  // M events need no time; a "dur" on an instant is ignored; a missing ts is 0 as before.
  const std::string json = traceWith(
      R"({"ph":"M","name":"thread_name","pid":1,"tid":1,"ts":"nan","args":{"name":"main"}},)"
      R"({"ph":"X","name":"s","pid":1,"tid":1,"ts":"12.5","dur":"2"},)"
      R"({"ph":"i","name":"mark","pid":1,"tid":1,"ts":20,"dur":"nan"},)"
      R"({"ph":"X","name":"early","pid":1,"tid":2,"dur":1})");
  auto compact = parseCompactTrace(json, "t.json");
  REQUIRE(compact);
  CHECK(compact->events.size() == 4);
  auto dom = parseChromeTrace(json, "t.json");
  REQUIRE(dom);
  CHECK(dom->events.size() == 4);
  CHECK(dom->threadNames.at({1, 1}) == "main");
  CHECK(finiteNumber("12.5") == 12.5);
  CHECK_FALSE(finiteNumber("nan"));
  CHECK_FALSE(finiteNumber("inf"));
  CHECK_FALSE(finiteNumber("1e999"));
  CHECK_FALSE(finiteNumber(""));
}

TEST_CASE("a JSON number too large for a double is refused, not read as infinity", "[profile][numbers]") {
  const std::string json = traceWith(R"({"ph":"X","name":"a","pid":1,"tid":1,"ts":1e999,"dur":5})");
  auto compact = parseCompactTrace(json, "big.json");
  REQUIRE_FALSE(compact);
  CHECK_THAT(compact.error().message(), Catch::Contains("big.json"));
  CHECK_FALSE(parseChromeTrace(json, "big.json"));
}
