#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <limits>

#include "profile/ChromeTrace.h"
#include "profile/CompactTrace.h"
#include "profile/TraceRecorder.h"
#include "profile/TraceValidator.h"

using namespace dfc::profile;
using dfc::Status;

namespace {

const TraceEvent* findEvent(const Trace& t, const std::string& name) {
  for (const auto& e : t.events)
    if (e.name == name) return &e;
  return nullptr;
}

const ArgValue* findArg(const TraceEvent& e, const std::string& key) {
  for (const auto& [k, v] : e.args)
    if (k == key) return &v;
  return nullptr;
}

Trace sampleRun() {
  TraceRecorder rec;
  rec.setProcessName(0, "RDU 0");
  rec.setThreadName(0, 0, "model run", 0);
  rec.setThreadName(0, 1, "encoder.layer", 1);
  rec.setMetadata("model", "gpt2");
  // Added out of order on purpose: the nested slice first.
  rec.addSlice(0, 0, "hs0.matmul", "section", 12.5, 5.0,
               {{"section_id", 3.0}, {"hypersection", std::string("hs0 \"fused\"")}, {"est_latency_us", 4.2}});
  rec.addSlice(0, 0, "step 0", "step", 10.0, 20.0, {});
  rec.addSlice(0, 1, "layer 0", "hyperfunction", 10.0, 8.0, {});
  rec.addSlice(0, 1, "bad", "hyperfunction", 20.0, -3.0, {{"nan", std::numeric_limits<double>::quiet_NaN()}});
  rec.addInstant(0, 0, "epoch end", "marker", 30.0);
  rec.addCounter(0, "loss", 30.0, "loss", 2.5);
  return rec.take();
}

}  // namespace

TEST_CASE("writer output passes the strict validator and sorts enclosing slices first") {
  Trace t = sampleRun();
  std::string json = chromeTraceToJson(t);
  Status s = validateChromeTraceJson(json);
  INFO((s ? std::string() : s.error().message()));
  REQUIRE(s.ok());
  CHECK(json.find("\"displayTimeUnit\":\"ms\"") != std::string::npos);
  CHECK(json.find("NaN") == std::string::npos);
  CHECK(json.find("null") == std::string::npos);
  CHECK(json.find("\"dur\":-") == std::string::npos);
  // M events come first, and the enclosing step precedes its nested section call.
  CHECK(json.find("\"ph\":\"M\"") < json.find("\"ph\":\"X\""));
  CHECK(json.find("step 0") < json.find("hs0.matmul"));
}

TEST_CASE("writer clips a slice that overlaps its neighbour without nesting") {
  TraceRecorder rec;
  rec.addSlice(1, 1, "a", "", 0, 10, {});
  rec.addSlice(1, 1, "b", "", 5, 10, {});  // would end after "a"
  std::string json = chromeTraceToJson(rec.take());
  REQUIRE(validateChromeTraceJson(json).ok());
  auto back = parseChromeTrace(json, "clip");
  REQUIRE(back.ok());
  CHECK(findEvent(*back, "b")->dur == Approx(5.0));
}

TEST_CASE("writer then reader round trip keeps events, names, args and metadata") {
  Trace t = sampleRun();
  auto path = (std::filesystem::temp_directory_path() / "dfc_profile_roundtrip.json").string();
  REQUIRE(writeChromeTrace(t, path).ok());
  auto back = readChromeTrace(path);
  std::filesystem::remove(path);
  REQUIRE(back.ok());
  CHECK(back->events.size() == t.events.size());
  CHECK(back->processNames.at(0) == "RDU 0");
  CHECK(back->threadNames.at({0, 1}) == "encoder.layer");
  CHECK(back->threadSortIndex.at({0, 1}) == 1);
  CHECK(back->metadata.at("model") == "gpt2");

  const TraceEvent* mm = findEvent(*back, "hs0.matmul");
  REQUIRE(mm);
  CHECK(mm->ph == 'X');
  CHECK(mm->cat == "section");
  CHECK(mm->ts == 12.5);
  CHECK(mm->dur == 5.0);
  REQUIRE(mm->args.size() == 3);
  CHECK(std::get<double>(*findArg(*mm, "section_id")) == 3.0);
  CHECK(std::get<std::string>(*findArg(*mm, "hypersection")) == "hs0 \"fused\"");

  const TraceEvent* bad = findEvent(*back, "bad");
  REQUIRE(bad);
  CHECK(bad->dur == 0.0);
  CHECK(std::get<double>(*findArg(*bad, "nan")) == 0.0);

  const TraceEvent* loss = findEvent(*back, "loss");
  REQUIRE(loss);
  CHECK(loss->ph == 'C');
  CHECK(std::get<double>(*findArg(*loss, "loss")) == 2.5);
  CHECK(findEvent(*back, "epoch end")->ph == 'i');
}

TEST_CASE("reader accepts the array form and pairs B/E per row") {
  const char* json = R"([
    {"ph":"B","name":"outer","pid":1,"tid":2,"ts":0},
    {"ph":"B","name":"inner","pid":1,"tid":2,"ts":1,"args":{"n":1}},
    {"ph":"B","name":"other-row","pid":1,"tid":3,"ts":2},
    {"ph":"E","pid":1,"tid":2,"ts":4,"args":{"m":"x"}},
    {"ph":"E","pid":1,"tid":2,"ts":10},
    {"ph":"E","pid":1,"tid":2,"ts":11},
    {"ph":"X","name":"late","pid":1,"tid":3,"ts":5,"dur":7},
    {"ph":"s","name":"flow","pid":1,"tid":2,"ts":3,"id":1},
    {"ph":"Q","name":"unknown phase","pid":1,"tid":2,"ts":3}
  ])";
  auto t = parseChromeTrace(json, "array.json");
  REQUIRE(t.ok());
  REQUIRE(t->events.size() == 4);  // outer, inner, other-row, late; unmatched E and flows dropped
  const TraceEvent* outer = findEvent(*t, "outer");
  const TraceEvent* inner = findEvent(*t, "inner");
  REQUIRE(outer);
  REQUIRE(inner);
  CHECK(outer->ph == 'X');
  CHECK(outer->dur == 10.0);
  CHECK(inner->ts == 1.0);
  CHECK(inner->dur == 3.0);
  CHECK(inner->args.size() == 2);  // B args plus E args
  // Unmatched B is closed at the last timestamp on its row (end of "late": 12).
  CHECK(findEvent(*t, "other-row")->dur == 10.0);
  // Sorted: outer before inner.
  CHECK(&t->events[0] == outer);
}

TEST_CASE("reader maps string pids and tids to stable numbers and keeps their labels") {
  const char* json = R"({"traceEvents":[
    {"ph":"X","name":"a","pid":"Spans","tid":"stream 7","ts":"1.5","dur":2},
    {"ph":"X","name":"b","pid":"Spans","tid":"stream 7","ts":4,"dur":1},
    {"ph":"X","name":"c","pid":"12","tid":3,"ts":4,"dur":1}
  ]})";
  auto t = parseChromeTrace(json, "strings.json");
  REQUIRE(t.ok());
  const TraceEvent* a = findEvent(*t, "a");
  const TraceEvent* b = findEvent(*t, "b");
  CHECK(a->pid == b->pid);
  CHECK(a->tid == b->tid);
  CHECK(a->ts == 1.5);
  CHECK(findEvent(*t, "c")->pid == 12);
  CHECK(t->processNames.at(a->pid) == "Spans");
  CHECK(t->threadNames.at({a->pid, a->tid}) == "stream 7");
}

TEST_CASE("reader reads counter events with several series") {
  const char* json = R"({"traceEvents":[
    {"ph":"C","name":"memory","pid":0,"ts":5,"args":{"host_mb":120.5,"arena_mb":"64","label":"n/a"}}
  ]})";
  auto t = parseChromeTrace(json, "counters.json");
  REQUIRE(t.ok());
  REQUIRE(t->events.size() == 1);
  const TraceEvent& c = t->events[0];
  CHECK(c.ph == 'C');
  REQUIRE(c.args.size() == 2);  // the non-numeric series is dropped
  CHECK(std::get<double>(c.args[0].second) == 120.5);
  CHECK(std::get<double>(c.args[1].second) == 64.0);
}

TEST_CASE("reader reads a PyTorch profiler trace") {
  const char* json = R"JSON({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "NVIDIA H100", "totalGlobalMem": 85000000000}],
  "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},
  "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 2817, "tid": 2817,
    "ts": 1700000000123.456, "dur": 45.125,
    "args": {"External id": 12, "Record function id": 0, "Sequence number": 3, "Fwd thread id": 0,
             "Ev Idx": 11, "Input Dims": [[32, 784], [128, 784], [128]], "Input type": ["float", "float", "float"]}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 2817, "tid": 2817,
    "ts": 1700000000130.001, "dur": 30.5, "args": {"External id": 13}},
  {"ph": "X", "cat": "kernel", "name": "volta_sgemm_128x64_tn", "pid": 0, "tid": "stream 7",
    "ts": 1700000000140.5, "dur": 12.75, "args": {"queued": 0, "device": 0, "stream": 7, "correlation": 41,
    "grid": [4, 1, 1], "block": [256, 1, 1], "est. achieved occupancy %": 12}},
  {"ph": "f", "id": 41, "pid": 0, "tid": "stream 7", "ts": 1700000000140.5, "cat": "ac2g", "name": "ac2g", "bp": "e"},
  {"ph": "s", "id": 41, "pid": 2817, "tid": 2817, "ts": 1700000000131.0, "cat": "ac2g", "name": "ac2g"},
  {"name": "process_name", "ph": "M", "ts": 1700000000000, "pid": 2817, "tid": 0, "args": {"name": "python3 2817"}},
  {"name": "process_labels", "ph": "M", "ts": 1700000000000, "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
  {"name": "thread_name", "ph": "M", "ts": 1700000000000, "pid": 2817, "tid": 2817, "args": {"name": "thread 2817 (python3)"}},
  {"name": "thread_sort_index", "ph": "M", "ts": 1700000000000, "pid": 2817, "tid": 2817, "args": {"sort_index": 2817}},
  {"ph": "i", "s": "t", "name": "Iteration Start: PyTorch Profiler", "pid": 2817, "tid": 2817, "ts": 1700000000100}
  ],
  "traceName": "run.pt.trace.json"
})JSON";
  auto t = parseChromeTrace(json, "pytorch.json");
  INFO((t ? std::string() : t.error().message()));
  REQUIRE(t.ok());
  CHECK(t->events.size() == 4);  // 3 X + 1 instant; flows and labels skipped
  CHECK(t->processNames.at(2817) == "python3 2817");
  CHECK(t->threadSortIndex.at({2817, 2817}) == 2817);
  const TraceEvent* lin = findEvent(*t, "aten::linear");
  REQUIRE(lin);
  CHECK(lin->dur == Approx(45.125));
  CHECK(std::get<double>(*findArg(*lin, "External id")) == 12.0);
  CHECK(std::get<std::string>(*findArg(*lin, "Input Dims")) == "[[32,784],[128,784],[128]]");
  const TraceEvent* k = findEvent(*t, "volta_sgemm_128x64_tn");
  REQUIRE(k);
  CHECK(t->threadNames.at({k->pid, k->tid}) == "stream 7");
  // Re-written by us, the foreign trace is valid for Perfetto.
  CHECK(validateChromeTraceJson(chromeTraceToJson(*t)).ok());
}

TEST_CASE("reader rejects malformed JSON and non-object events with clear errors") {
  auto bad = parseChromeTrace(R"({"traceEvents":[{"ph":"X",)", "broken.json");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message(), Catch::StartsWith("broken.json: invalid JSON"));

  auto notObj = parseChromeTrace(R"([{"ph":"X","pid":1,"tid":1,"ts":0,"dur":1}, 42])", "odd.json");
  REQUIRE_FALSE(notObj.ok());
  CHECK(notObj.error().message() == "odd.json: event 1 is not an object");

  auto noEvents = parseChromeTrace(R"({"foo":1})", "empty.json");
  REQUIRE_FALSE(noEvents.ok());
  CHECK_THAT(noEvents.error().message(), Catch::Contains("traceEvents"));

  auto missing = readChromeTrace("/nonexistent/dir/trace.json");
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.error().message(), Catch::StartsWith("/nonexistent/dir/trace.json"));
}

TEST_CASE("validator rejects what Perfetto would misdraw") {
  auto msgOf = [](const std::string& json) {
    Status s = validateChromeTraceJson(json);
    return s.ok() ? std::string("ok") : s.error().message();
  };
  CHECK(msgOf(R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":10},
                                 {"ph":"X","name":"b","pid":1,"tid":1,"ts":5,"dur":10}]})")
            .find("trace event 1: X slice 'b'") == 0);
  CHECK(msgOf(R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":10},
                                 {"ph":"X","name":"b","pid":1,"tid":2,"ts":5,"dur":10},
                                 {"ph":"X","name":"c","pid":1,"tid":1,"ts":10,"dur":1}]})") == "ok");
  CHECK(msgOf(R"({"traceEvents":[{"ph":"X","name":"a","tid":1,"ts":0,"dur":10}]})") ==
        "trace event 0: missing or non-numeric \"pid\"");
  CHECK(msgOf(R"({"traceEvents":[{"ph":"i","name":"a","pid":1,"tid":1,"ts":0},
                                 {"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":-1}]})") ==
        "trace event 1: X event with negative \"dur\"");
  CHECK(msgOf(R"({"traceEvents":[{"ph":"M","name":"thread_name","pid":1,"tid":1,"ts":0,"args":{}}]})")
            .find("has no string args.name") != std::string::npos);
  CHECK(msgOf(R"([{"ph":"X","pid":1,"tid":1,"ts":0,"dur":1}])") == "trace: top level is not a JSON object");
  CHECK(msgOf(R"({"traceEvents":[{"ph":"X","pid":"1","tid":1,"ts":0,"dur":1}]})").find("pid") !=
        std::string::npos);
}

// A pid or tid beyond int64 (found by fuzz_chrome_trace_reader: a double cast
// to int64 out of range is undefined) saturates in both readers and in the
// validator, so two such rows stay apart from real ones and nothing traps.
TEST_CASE("trace readers saturate pid and tid numbers beyond int64") {
  const std::string json =
      R"({"traceEvents":[{"ph":"X","name":"far","pid":1e90,"tid":-1e300,"ts":0,"dur":5},)"
      R"({"ph":"M","name":"thread_sort_index","pid":1e90,"tid":-1e300,"args":{"sort_index":5e40}},)"
      R"({"ph":"X","name":"near","pid":1,"tid":2,"ts":1,"dur":2}]})";
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  auto full = parseChromeTrace(json, "far.json");
  REQUIRE(full);
  const TraceEvent* far = findEvent(*full, "far");
  REQUIRE(far);
  CHECK(far->pid == kMax);
  CHECK(far->tid == kMin);
  CHECK(full->threadSortIndex.at({kMax, kMin}) == kMax);
  auto compact = parseCompactTrace(json, "far.json");
  REQUIRE(compact);
  bool found = false;
  for (const auto& t : compact->threads)
    if (t.pid == kMax && t.tid == kMin) found = true;
  CHECK(found);
  CHECK(compact->threadSortIndex.at({kMax, kMin}) == kMax);
}
