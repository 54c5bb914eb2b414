#include <QTemporaryDir>
#include <catch2/catch.hpp>
#include <fstream>

#include "profile/ChromeTrace.h"
#include "profile/CompactTrace.h"
#include "timeline/TimelineData.h"

using namespace dfc::profile;

TEST_CASE("The compact reader pairs B/E, keeps args raw and interns names", "[gui][timeline]") {
  auto t = parseCompactTrace(R"([
    {"ph":"B","name":"outer","pid":1,"tid":2,"ts":10,"args":{"k":"v"}},
    {"ph":"B","name":"inner","pid":1,"tid":2,"ts":12},
    {"ph":"E","pid":1,"tid":2,"ts":15,"args":{"out":3}},
    {"ph":"E","pid":1,"tid":2,"ts":20},
    {"ph":"X","name":"outer","pid":1,"tid":3,"ts":1,"dur":2,"args":{"hypersection":"hs4_conv"}},
    {"ph":"B","name":"dangling","pid":1,"tid":3,"ts":5},
    {"ph":"X","name":"late","pid":1,"tid":3,"ts":9,"dur":1},
    {"ph":"s","id":1,"pid":1,"tid":2,"ts":11}
  ])",
                             "be.json");
  REQUIRE(t);
  REQUIRE(t->events.size() == 5);
  REQUIRE(t->threads.size() == 2);
  // Thread (1,2) first, by start time.
  CHECK(t->string(t->events[0].name) == "outer");
  CHECK(t->events[0].dur == 10.0);
  CHECK(t->string(t->events[1].name) == "inner");
  CHECK(t->events[1].dur == 3.0);
  Args innerArgs = t->args(t->events[1]);  // E args count when B has none
  REQUIRE(innerArgs.size() == 1);
  CHECK(innerArgs[0].first == "out");
  CHECK(t->events[0].name == t->events[2].name);  // interned once
  // The colour key is the hypersection arg when there is one.
  CHECK(t->string(t->events[2].colorKey) == "hs4_conv");
  // An unmatched B ends with its row's last event.
  CHECK(t->string(t->events[3].name) == "dangling");
  CHECK(t->events[3].dur == 5.0);
}

TEST_CASE("The compact reader agrees with the DOM reader on a written trace", "[gui][timeline]") {
  Trace trace;
  trace.processNames[1] = "chip 0";
  trace.threadNames[{1, 0}] = "whole model run";
  for (int i = 0; i < 50; ++i)
    trace.events.push_back({'X', "s" + std::to_string(i % 4), "section", 1, i % 3, i * 5.0, 4.0,
                            {{"section_id", double(i % 4)}, {"hypersection", std::string("hs") + std::to_string(i % 2)}}});
  trace.events.push_back({'C', "loss", "", 1, 0, 30.0, 0, {{"loss", 0.25}}});
  QTemporaryDir dir;
  const std::string path = dir.filePath(QStringLiteral("t.json")).toStdString();
  REQUIRE(writeChromeTrace(trace, path));
  auto compact = readCompactTrace(path);
  REQUIRE(compact);
  auto dom = readChromeTrace(path);
  REQUIRE(dom);
  const auto fromDom = dfc::views::buildTimelineData(*dom);
  const auto fromCompact = dfc::views::buildTimelineData(std::move(compact.value()));
  REQUIRE(fromCompact.rows.size() == fromDom.rows.size());
  for (size_t r = 0; r < fromDom.rows.size(); ++r) {
    CHECK(fromCompact.rows[r].name == fromDom.rows[r].name);
    CHECK(fromCompact.rows[r].starts == fromDom.rows[r].starts);
    CHECK(fromCompact.rows[r].durations == fromDom.rows[r].durations);
    CHECK(fromCompact.rows[r].colors == fromDom.rows[r].colors);
  }
  REQUIRE(fromCompact.counters.size() == 1);
  CHECK(fromCompact.counters[0].values == std::vector<double>{0.25});
}

TEST_CASE("The compact reader names the file when the JSON is broken", "[gui][timeline]") {
  // Cut off after one complete event: that event loads, with a warning naming the file.
  auto cut = parseCompactTrace(R"({"traceEvents":[{"ph":"X","name":"a"},{"ph":"X",)", "cut.json");
  REQUIRE(cut);
  CHECK(cut->events.size() == 1);
  REQUIRE(cut->warnings.size() == 1);
  CHECK(cut->warnings[0].find("cut.json") != std::string::npos);
  auto bad = parseCompactTrace(R"({"traceEvents":[{"ph":"X","name" "a"}]})", "broken.json");
  REQUIRE(!bad);
  CHECK(bad.error().message().find("broken.json") != std::string::npos);
  auto notObject = parseCompactTrace(R"([{"ph":"X","pid":1,"tid":1,"ts":0,"dur":1}, 42])", "odd.json");
  REQUIRE(!notObject);
  CHECK(notObject.error().message().find("event 1") != std::string::npos);
  auto noEvents = parseCompactTrace(R"({"foo":1})", "empty.json");
  REQUIRE(!noEvents);
  CHECK(noEvents.error().message().find("traceEvents") != std::string::npos);
  auto missing = readCompactTrace("/nonexistent/dir/trace.json");
  REQUIRE(!missing);
  CHECK(missing.error().message().find("/nonexistent/dir/trace.json") != std::string::npos);
}
