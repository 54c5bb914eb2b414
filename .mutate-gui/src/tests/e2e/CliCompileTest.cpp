// `dfc compile` as a user runs it: the resource flags reach the compiler and
// change the chip, the sections and the estimates the way `dfc compile --help`
// says; bad model, rule and arch files are refused with exit status 2.
#include <catch2/catch.hpp>

#include <simdjson.h>

#include <filesystem>
#include <fstream>

#include "TestEnv.h"
#include "pef/Pef.h"
#include "profile/RunStore.h"

#include <cmath>

using namespace dfc;
using test::runDfc;

namespace {

struct Compiled {
  pef::Pef pef;
  int64_t archPcus = 0, archPmus = 0;
  std::map<ir::NodeRole, int> sectionsByRole;
  double estLatencyUs = 0;  // one step, as `dfc inspect` sums it
  int sections() const { return static_cast<int>(pef.plan.sections.size()); }
};

// Compiles with `flags` (shell words) into a fresh folder under `dir` and reads the PEF back.
Compiled compile(const test::ScratchDir& dir, const std::string& name, const std::string& flags) {
  const std::string out = dir / name;
  auto r = runDfc("compile --db - --pef-name " + name + " --output-folder " + out + " " + flags);
  INFO("dfc compile " << flags << "\n" << r.output);
  REQUIRE(r.status == 0);
  auto pef = pef::readPef(out + "/" + name + ".pef");
  REQUIRE(pef);
  Compiled c;
  c.pef = std::move(*pef);
  simdjson::dom::parser parser;
  simdjson::dom::element report;
  REQUIRE(!parser.parse(c.pef.reportJson).get(report));
  REQUIRE(!report["arch_pcus"].get(c.archPcus));
  REQUIRE(!report["arch_pmus"].get(c.archPmus));
  for (const auto& s : c.pef.plan.sections) ++c.sectionsByRole[s.type];
  for (int id : c.pef.plan.schedule) c.estLatencyUs += c.pef.plan.sections[static_cast<size_t>(id)].estimate.latencyUs;
  return c;
}

int maxSectionPcus(const Compiled& c) {
  int most = 0;
  for (const auto& s : c.pef.plan.sections) most = std::max(most, s.estimate.pcus);
  return most;
}

void writeText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("dfc compile --n-chips and --num-tiles shape the chip the sections are cut for", "[e2e][cli]") {
  test::ScratchDir dir("cli-chips");
  // sn10: 4 tiles of 160 PCUs and 160 PMUs per chip. A scaling factor of 0.1 makes
  // lenet's sections small enough that the chip's size decides how many there are.
  const std::string base = "--model lenet -b 8 --arch sn10 --resources-scaling-factors 0.1 0.1 0.1";
  Compiled one = compile(dir, "one", base);
  Compiled two = compile(dir, "two", base + " --n-chips 2");
  Compiled tile = compile(dir, "tile", base + " --num-tiles 1");
  Compiled both = compile(dir, "both", base + " --n-chips 2 --num-tiles 2");
  CHECK(one.archPcus == 640);
  CHECK(one.archPmus == 640);
  CHECK(two.archPcus == 1280);  // --n-chips multiplies the chip
  CHECK(tile.archPcus == 160);  // --num-tiles 1: one tile of four
  CHECK(both.archPcus == 640);  // 2 chips x 2 tiles x 160
  CHECK(two.pef.meta.args == std::vector<std::string>{"dfc", "compile", "--model", "lenet", "--pef-name", "two",
                                                       "--output-folder", dir / "two", "-b", "8", "-o3", "--arch",
                                                       "sn10", "--n-chips", "2", "--resources-scaling-factors", "0.1",
                                                       "0.1", "0.1", "--optimizer", "momentum", "--lr", "0.01",
                                                       "--seed", "42", "--db", "-"});
  // A section may use 10% of the chips' PCUs: 64, 128 and 16.
  CHECK(maxSectionPcus(one) <= 64);
  CHECK(maxSectionPcus(two) <= 128);
  CHECK(maxSectionPcus(tile) <= 16);
  // More room, fewer sections; less room, more sections. With 128 PCUs each
  // role of lenet fits one section.
  CHECK(one.sections() > 3);
  CHECK(two.sectionsByRole == std::map<ir::NodeRole, int>{{ir::NodeRole::Forward, 1}, {ir::NodeRole::Backward, 1},
                                                          {ir::NodeRole::Optimizer, 1}});
  CHECK(tile.sections() > one.sections());
  CHECK(both.sections() == one.sections());  // the same PCUs, arranged differently
  // Fewer tiles: less compute and fewer, narrower sections: slower per step.
  CHECK(tile.estLatencyUs > one.estLatencyUs);
  CHECK(two.estLatencyUs < one.estLatencyUs);
}

TEST_CASE("dfc compile --resources-scaling-factors: 3 values are forward backward optimizer, 4 add gradient normalization third",
          "[e2e][cli]") {
  test::ScratchDir dir("cli-scales");
  const std::string base = "--model lenet -b 8 --arch sn10 --resources-scaling-factors ";
  Compiled full = compile(dir, "full", base + "1 1 1");
  Compiled fwd = compile(dir, "fwd", base + "0.02 1 1");
  Compiled opt3 = compile(dir, "opt3", base + "1 1 0.02");
  Compiled opt4 = compile(dir, "opt4", base + "1 1 1 0.02");
  Compiled norm4 = compile(dir, "norm4", base + "1 1 0.02 1");
  using R = ir::NodeRole;
  // The forward factor cuts only forward sections.
  CHECK(fwd.sectionsByRole[R::Forward] > full.sectionsByRole[R::Forward]);
  CHECK(fwd.sectionsByRole[R::Backward] == full.sectionsByRole[R::Backward]);
  CHECK(fwd.sectionsByRole[R::Optimizer] == full.sectionsByRole[R::Optimizer]);
  // The optimizer's factor: third of three, fourth of four.
  CHECK(opt3.sectionsByRole[R::Optimizer] > full.sectionsByRole[R::Optimizer]);
  CHECK(opt3.sectionsByRole[R::Forward] == full.sectionsByRole[R::Forward]);
  CHECK(opt4.sectionsByRole == opt3.sectionsByRole);
  CHECK(opt4.estLatencyUs == Approx(opt3.estLatencyUs));
  // The third of four is for gradient normalization, which momentum SGD does not have.
  CHECK(norm4.sectionsByRole == full.sectionsByRole);
  CHECK(norm4.estLatencyUs == Approx(full.estLatencyUs));
  for (const auto& s : opt4.pef.plan.sections)
    if (s.type == R::Optimizer) CHECK(s.estimate.pcus <= 12);  // floor(640 * 0.02)
}

TEST_CASE("dfc compile refuses malformed ONNX, rule list and arch files with exit status 2", "[e2e][cli]") {
  test::ScratchDir dir("cli-bad-files");
  auto refused = [&](const std::string& flags, const std::string& culprit, const std::string& what) {
    const std::string out = dir / "out";
    auto r = runDfc("compile --db - --pef-name bad --output-folder " + out + " " + flags);
    INFO("dfc compile " << flags << "\n" << r.output);
    CHECK(r.status == 2);
    CHECK(r.output.find(culprit) != std::string::npos);
    CHECK(r.output.find(what) != std::string::npos);
    CHECK(r.output.find("dfc: error: ") == 0);
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);  // one line
    CHECK(!std::filesystem::exists(out + "/bad.pef"));
  };
  struct BadFile {
    const char* name;
    const char* text;
    const char* flag;  // the flag taking the file
    const char* what;  // also in the message
  };
  const BadFile files[] = {
      {"garbage.onnx", "this is not a protobuf\n", "--model", "garbage.onnx"},
      {"syntax_rules.yaml", "- name: Broken\n  pattern: {gemm: {op_type: matmul, child: [\n", "-o1 --o1-rule-list",
       "syntax_rules.yaml:"},
      {"op_rules.yaml", "- name: Wrong\n  pattern:\n    a: {op_type: convolve_everything}\n", "-o1 --o1-rule-list",
       "convolve_everything"},
      {"syntax_arch.yaml", "name: x\ntiles: [4\n", "--arch", "syntax_arch.yaml:"},
      {"short_arch.yaml", "name: short\ntiles: 4\npcus_per_tile: 100\n", "--arch", "pmus_per_tile"},
  };
  for (const BadFile& f : files) {
    writeText(dir / f.name, f.text);
    const std::string model = std::string(f.flag) == "--model" ? "" : "--model lenet ";
    refused(model + f.flag + " " + (dir / f.name), f.name, f.what);
  }
}

TEST_CASE("dfc compile -o1: section and hypersection counts of the zoo transformers", "[e2e][cli]") {
  // Measured on this code; they move when the hypersection hash or the fusion
  // matcher changes what they merge (dropping attribute values from the hash gave
  // gpt2-mini 62 and bert 77 unique; dropping the matcher's role check gave 98
  // sections with the gpt2 rules).
  test::ScratchDir dir("cli-counts");
  struct Count {
    const char* flags;
    int sections, unique;
  };
  const Count counts[] = {
      {"--model gpt2-mini -o1", 155, 67},
      {"--model bert -o1", 829, 82},
      {"--model gpt2-mini -o1 --o1-rule-list gpt2", 92, 40},  // 96, 42 before MHABackward took dO V^T and P^T dO
  };
  for (const Count& c : counts) {
    INFO(c.flags);
    Compiled got = compile(dir, "counts", std::string(c.flags) + " -b 32");
    CHECK(got.sections() == c.sections);
    CHECK(static_cast<int>(got.pef.plan.hypersections.size()) == c.unique);
  }
}

TEST_CASE("dfc compile's summary counts only the section roles the compile has", "[e2e][cli]") {
  test::ScratchDir dir("cli-summary");
  auto train = runDfc("compile --db - -m logreg --pef-name t --output-folder " + (dir / "t"));
  REQUIRE(train.status == 0);
  INFO(train.output);
  CHECK(train.output.find(" forward, ") != std::string::npos);
  CHECK(train.output.find(" optimizer)") != std::string::npos);
  CHECK(train.output.find("0 accumulate") == std::string::npos);
  CHECK(train.output.find("0 reduce") == std::string::npos);

  auto infer = runDfc("compile --db - -m logreg --inference --pef-name i --output-folder " + (dir / "i"));
  REQUIRE(infer.status == 0);
  INFO(infer.output);
  CHECK(infer.output.find(" forward)") != std::string::npos);
  CHECK(infer.output.find("backward") == std::string::npos);
}

TEST_CASE("dfc compile prints the compile time the run store records", "[e2e][cli][store]") {
  test::ScratchDir dir("compile-time");
  const std::string db = dir / "runs.sqlite";
  auto r = runDfc("compile --model lenet -o0 --pef-name l0 --output-folder " + (dir / "l0") + " --db " + db);
  INFO(r.output);
  REQUIRE(r.status == 0);
  const size_t at = r.output.find("compile time ");
  REQUIRE(at != std::string::npos);
  const double printed = std::stod(r.output.substr(at + 13));
  auto store = profile::RunStore::open(db);
  REQUIRE(store);
  auto compiles = store->listCompiles();
  REQUIRE(compiles);
  REQUIRE(compiles->size() == 1);
  // One figure: the CLI rounds to whole milliseconds, as the Runs table shows it.
  CHECK(printed == Approx(std::round(compiles->front().durationMs)).margin(0.5));
}
