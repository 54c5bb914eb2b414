// The figures a user reads in the compile report (layers 1-3) and in a run's
// trace (layer 4) are the PEF's own numbers: each slice's args against its
// section's estimate, the report's placement against the bitfiles, and the
// rates against the bytes and times they are computed from.
#include <simdjson.h>

#include <catch2/catch.hpp>
#include <map>

#include "TestEnv.h"
#include "arch/ArchSpec.h"
#include "driver/compile/Compiler.h"
#include "driver/run/Runner.h"
#include "pef/Pef.h"
#include "profile/ChromeTrace.h"

using namespace dfc;

namespace {

struct Layer3 {
  int64_t pcus = 0, pmus = 0, tiles = 0, totalHops = 0, hypersection = -1;
  double minUs = 0, maxUs = 0, ddrBytes = 0;
};

std::map<int64_t, Layer3> layer3(simdjson::dom::element report) {
  std::map<int64_t, Layer3> out;
  simdjson::dom::array sections;
  REQUIRE(!report["layer3_sections"].get(sections));
  for (simdjson::dom::element s : sections) {
    int64_t id = -1;
    REQUIRE(!s["id"].get(id));
    Layer3 l;
    REQUIRE(!s["pcus"].get(l.pcus));
    REQUIRE(!s["pmus"].get(l.pmus));
    REQUIRE(!s["tiles"].get(l.tiles));
    REQUIRE(!s["total_hops"].get(l.totalHops));
    REQUIRE(!s["hypersection"].get(l.hypersection));
    REQUIRE(!s["min_latency_us"].get(l.minUs));
    REQUIRE(!s["max_latency_us"].get(l.maxUs));
    REQUIRE(!s["ddr_bytes"].get(l.ddrBytes));
    out[id] = l;
  }
  return out;
}

double number(const profile::TraceEvent& e, const std::string& key) {
  for (const auto& [k, v] : e.args)
    if (k == key) {
      REQUIRE(std::holds_alternative<double>(v));
      return std::get<double>(v);
    }
  FAIL("slice " << e.name << " has no arg " << key);
  return 0;
}

const pef::Bitfile& bitfileOf(const pef::Pef& pef, int hypersection) {
  for (const auto& b : pef.bitfiles)
    if (b.hypersection == hypersection) return b;
  FAIL("no bitfile for hypersection " << hypersection);
  return pef.bitfiles.front();
}

// lenet -o1 for training (sn30 unless said): sections of every role, some with weights.
struct Fixture {
  test::ScratchDir dir{"report-values"};
  pef::Pef pef;
  std::string pefPath;
  explicit Fixture(const std::string& arch = "sn30") {
    driver::CompileOptions c;
    c.model = "lenet";
    c.level = partition::OptLevel::O1;
    c.batchSize = 8;
    c.arch = arch;
    c.outputFolder = dir / "out";
    c.dbPath = "-";
    auto compiled = driver::compile(c);
    if (!compiled) FAIL(compiled.error().message());
    pefPath = compiled->pefPath;
    auto read = pef::readPef(pefPath);
    REQUIRE(read);
    pef = std::move(*read);
  }
};

}  // namespace

TEST_CASE("the compile report's layers are the plan's estimates and the bitfiles' placement", "[e2e][report]") {
  // sn30 streams from DDR; sn40l has HBM for activations, but max latency still streams weights from DDR.
  const std::string archName = GENERATE(as<std::string>{}, "sn30", "sn40l");
  Fixture f(archName);
  auto spec = arch::loadArch(archName);
  REQUIRE(spec);
  const partition::Plan& plan = f.pef.plan;
  simdjson::dom::parser parser;
  simdjson::dom::element report;
  REQUIRE(!parser.parse(f.pef.reportJson).get(report));
  // Layer 1: each hypersection's figures are those of its first instance.
  simdjson::dom::array hs;
  REQUIRE(!report["layer1_hypersections"].get(hs));
  REQUIRE(hs.size() == plan.hypersections.size());
  for (simdjson::dom::element h : hs) {
    int64_t id = -1, calls = 0, pcus = 0, pmus = 0;
    double tflop = 0, latency = 0;
    REQUIRE(!h["id"].get(id));
    REQUIRE(!h["calls"].get(calls));
    REQUIRE(!h["est_pcus"].get(pcus));
    REQUIRE(!h["est_pmus"].get(pmus));
    REQUIRE(!h["tflop"].get(tflop));
    REQUIRE(!h["est_latency_us"].get(latency));
    const auto& want = plan.hypersections.at(static_cast<size_t>(id));
    const auto& first = plan.sections.at(static_cast<size_t>(want.sections.front())).estimate;
    CHECK(calls == static_cast<int64_t>(want.sections.size()));
    CHECK(pcus == first.pcus);
    CHECK(pmus == first.pmus);
    CHECK(tflop == Approx(first.flop / 1e12));
    CHECK(latency == Approx(first.latencyUs));
  }
  // Layer 2: the schedule.
  simdjson::dom::array schedule;
  REQUIRE(!report["layer2_schedule"].get(schedule));
  std::vector<int> calls;
  for (simdjson::dom::element id : schedule) calls.push_back(static_cast<int>(int64_t(id)));
  CHECK(calls == plan.schedule);
  // Layer 3: placed units and hops are the bitfile's; min keeps weights on chip, max streams them.
  std::string_view placement;
  REQUIRE(!report["placement"].get(placement));
  REQUIRE(placement == "placed");
  auto placed = layer3(report);
  REQUIRE(placed.size() == plan.sections.size());
  const double ddrBytesPerUs = spec->ddrGbps * 1e3;
  int weightsStreamed = 0;
  for (const auto& s : plan.sections) {
    INFO("section " << s.name);
    const Layer3& l = placed.at(s.id);
    const pef::Bitfile& b = bitfileOf(f.pef, s.hypersection);
    CHECK(l.hypersection == s.hypersection);
    CHECK(l.pcus == b.pcus());
    CHECK(l.pmus == b.pmus());
    CHECK(l.tiles == b.tiles);
    CHECK(l.totalHops == b.totalHops());
    CHECK(l.ddrBytes == s.estimate.ddrBytes);
    const double fillUs = static_cast<double>(s.nodes.size()) * spec->pcuStages / (spec->clockGhz * 1e3);
    CHECK(l.minUs >= s.estimate.computeUs + fillUs - 1e-9);
    CHECK(l.maxUs >= s.estimate.ddrBytes / ddrBytesPerUs + fillUs - 1e-9);
    CHECK(l.minUs <= l.maxUs);
    weightsStreamed += l.minUs < l.maxUs;
  }
  CHECK(weightsStreamed > 0);  // sections with weights that bound them: max > min
}

TEST_CASE("a run's trace args are its sections' estimates, placement and measured rates", "[e2e][report]") {
  Fixture f;
  driver::RunOptions r;
  r.pefPath = f.pefPath;
  r.dataFolder = test::kFashionMnist;
  r.dbPath = "-";
  r.trainLimit = 16;  // two steps of 8
  r.testLimit = 8;
  auto ran = driver::run(r);
  if (!ran) FAIL(ran.error().message());
  auto trace = profile::readChromeTrace(ran->tracePath);
  REQUIRE(trace);
  simdjson::dom::parser parser;
  simdjson::dom::element report;
  REQUIRE(!parser.parse(f.pef.reportJson).get(report));
  auto placed = layer3(report);
  // Layers 1-3 are constant per section: once, in the sections table.
  simdjson::dom::parser tableParser;
  simdjson::dom::object table;
  REQUIRE(!tableParser.parse(trace->metadataJson.at("sections")).get(table));
  int64_t slices = 0;
  for (const profile::TraceEvent& e : trace->events) {
    if (e.ph != 'X' || e.tid != 0) continue;  // the whole-run row: one slice per section call
    ++slices;
    const auto id = static_cast<size_t>(number(e, "section_id"));
    REQUIRE(id < f.pef.plan.sections.size());
    const partition::Section& s = f.pef.plan.sections[id];
    const auto& hs = f.pef.plan.hypersections.at(static_cast<size_t>(s.hypersection));
    const partition::SectionEstimate& est = s.estimate;
    INFO("section " << s.name);
    simdjson::dom::object k;
    REQUIRE(!table[std::to_string(id)].get(k));
    auto figure = [&](const char* key) {
      double v = 0;
      int64_t i = 0;
      if (!k[key].get(v)) return v;
      REQUIRE(!k[key].get(i));
      return static_cast<double>(i);
    };
    auto words = [&](const char* key) { return std::string(k[key].get_string().value()); };
    // Layer 1-2: names and estimates.
    CHECK(e.name == hs.name);
    CHECK(words("hypersection") == hs.name);
    CHECK(words("name") == s.name);
    CHECK(words("type") == std::string(ir::roleName(s.type)));
    CHECK(e.cat == std::string(ir::roleName(s.type)));
    CHECK(words("hyperfunction") == s.hyperfunction);
    CHECK(number(e, "est_latency_us") == Approx(est.latencyUs).epsilon(1e-3));  // 4 significant digits per call
    CHECK(figure("est_latency_us") == Approx(est.latencyUs));
    CHECK(figure("tflop") == Approx(est.flop / 1e12));
    CHECK(figure("pcus") == est.pcus);
    CHECK(figure("pmus") == est.pmus);
    CHECK(figure("ddr_bytes") == est.ddrBytes);
    // Layer 3: the compile report's placement.
    const Layer3& l = placed.at(s.id);
    CHECK(figure("placed_pcus") == l.pcus);
    CHECK(figure("placed_pmus") == l.pmus);
    CHECK(figure("placed_hops") == l.totalHops);
    CHECK(figure("min_latency_us") == Approx(l.minUs));
    CHECK(figure("max_latency_us") == Approx(l.maxUs));
    // Layer 4: the measured time is the slice; its rate is the bytes a call moves over it.
    REQUIRE(e.dur > 0);
    const double hostBytes = figure("host_bytes");
    CHECK(hostBytes == est.ddrBytes);  // the runtime moves across the boundary what the cost model counts
    CHECK(number(e, "host_gbps") == Approx(hostBytes / (e.dur * 1e3)).epsilon(1e-3));
    CHECK(number(e, "step") >= 0);
  }
  CHECK(slices == ran->sectionCalls);
  CHECK(slices > 0);
}
