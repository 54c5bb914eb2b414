// `dfc run --inference --input`: a conv + matmul ONNX model with two inputs,
// built at test time (tests/data/run_inputs/conv_matmul.py), compiled by dfc
// and run on a .npy file and random data; the outputs written with
// --output-dir equal numpy's within 1e-5, the run and its trace are recorded.
// Then each refusal: exit status 2 and a line naming the culprit.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "TestEnv.h"
#include "driver/RunInputs.h"
#include "ir/NpyFile.h"
#include "pef/Pef.h"
#include "profile/RunStore.h"
#include "support/FileUtil.h"

using namespace dfc;
namespace fs = std::filesystem;

namespace {

const std::string kScript = std::string(DFC_TEST_DATA_DIR) + "/run_inputs/conv_matmul.py";

bool python(const std::string& args) { return std::system(("/usr/bin/python3 " + kScript + " " + args).c_str()) == 0; }

// The model compiled into dir/pef; returns the PEF's path ("" when python3-onnx is missing).
std::string compiledModel(const test::ScratchDir& dir) {
  if (std::system("/usr/bin/python3 -c 'import onnx' 2>/dev/null") != 0) return "";
  REQUIRE(python("model " + dir.path().string()));
  auto c = test::runDfc("compile -m " + (dir / "model.onnx") + " --inference -b 1 --output-folder " + (dir / "pef") +
                        " --db " + (dir / "runs.sqlite"));
  INFO(c.output);
  REQUIRE(c.status == 0);
  for (const auto& e : fs::directory_iterator(dir / "pef"))
    if (e.path().extension() == ".pef") return e.path().string();
  FAIL("no .pef in " << (dir / "pef"));
  return "";
}

ir::NpyArray loadNpy(const std::string& path) {
  auto a = ir::readNpyFile(path);
  if (!a) FAIL(a.error().message());
  return std::move(*a);
}

double maxAbsDiff(const ir::NpyArray& got, const ir::NpyArray& want) {
  REQUIRE(got.typeText() == want.typeText());
  const auto* g = reinterpret_cast<const float*>(got.data.data());
  const auto* w = reinterpret_cast<const float*>(want.data.data());
  double worst = 0;
  for (size_t i = 0; i < got.data.size() / 4; ++i) worst = std::max(worst, std::fabs(double(g[i]) - double(w[i])));
  return worst;
}

}  // namespace

TEST_CASE("dfc run --input runs an ONNX model on a .npy file and random data, outputs equal numpy's", "[run][onnx]") {
  test::ScratchDir dir("run-inputs");
  const std::string pefPath = compiledModel(dir);
  if (pefPath.empty()) {
    WARN("python3-onnx missing: skipped");
    return;
  }
  auto r = test::runDfc("run -p " + pefPath + " --inference --input a=" + (dir / "a.npy") +
                        " --input b=random --seed 7 --output-dir " + (dir / "out") + " --db " + (dir / "runs.sqlite") +
                        " --trace " + (dir / "trace.json"));
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(r.output.find("Input b: f32[1,8] from random (seed 7)") != std::string::npos);
  CHECK(r.output.find("Output y: f32[1,8], min ") != std::string::npos);
  CHECK(r.output.find("Output head/out: f32[1,4,6,6], min ") != std::string::npos);

  // b as the run drew it (the same seed, the same stream), for the reference.
  auto pef = pef::readPef(pefPath);
  REQUIRE(pef);
  auto bound = driver::bindInputs(pef->graph, {{"a", dir / "a.npy"}, {"b", "random"}}, 7, driver::inputNamesOf(*pef));
  REQUIRE(bound);
  REQUIRE(support::writeFileAtomic(dir / "b.npy", ir::encodeNpy((*bound)[1].tensor)));
  REQUIRE(python("reference " + dir.path().string()));
  CHECK(maxAbsDiff(loadNpy(dir / "out/y.npy"), loadNpy(dir / "ref/y.npy")) <= 1e-5);
  CHECK(maxAbsDiff(loadNpy(dir / "out/head%2Fout.npy"), loadNpy(dir / "ref/head%2Fout.npy")) <= 1e-5);
  CHECK(!fs::exists(dir / "head"));  // the '/' in the name made no folder

  // Recorded as a zoo model's run is: finished, with its trace and section calls.
  auto store = profile::RunStore::open(dir / "runs.sqlite");
  REQUIRE(store);
  auto runs = store->listRuns();
  REQUIRE(runs);
  REQUIRE(runs->size() == 1);
  CHECK(runs->front().status == "finished");
  CHECK(!runs->front().testAccuracy);
  CHECK(fs::equivalent(runs->front().tracePath, dir / "trace.json"));
  auto calls = store->sectionCalls(runs->front().id);
  REQUIRE(calls);
  CHECK(!calls->empty());
}

TEST_CASE("dfc run --input refuses what it cannot run with exit status 2, naming the culprit", "[run][onnx]") {
  test::ScratchDir dir("run-inputs-bad");
  const std::string pefPath = compiledModel(dir);
  if (pefPath.empty()) {
    WARN("python3-onnx missing: skipped");
    return;
  }
  const std::string base = "run -p " + pefPath + " --inference --db - --trace " + (dir / "t.json") + " ";
  auto refused = [&](const std::string& flags, const std::string& message) {
    auto r = test::runDfc(base + flags);
    INFO(flags << "\n" << r.output);
    CHECK(r.status == 2);
    CHECK(r.output.find(message) != std::string::npos);
  };
  refused("--input a=" + (dir / "a.npy"), "input 'b' (f32[1,8]) is not bound: give --input b=FILE or --input b=random");
  refused("--input a=random --input b=random --input c=random",
          "--input c: the PEF has no input 'c' (its inputs: a, b)");
  refused("--input a=random --input a=random --input b=random", "--input a is given twice");
  refused("--input a=" + (dir / "a64.npy") + " --input b=random", "input 'a' needs f32[1,2,6,6], given f64[1,2,6,6]");
  const ir::Tensor small(ir::TensorType{ir::DType::F32, {1, 2, 5, 5}});
  REQUIRE(support::writeFileAtomic(dir / "small.npy", ir::encodeNpy(small)));
  refused("--input a=" + (dir / "small.npy") + " --input b=random", "input 'a' needs f32[1,2,6,6], given f32[1,2,5,5]");
  dir.write("bad.npy", "not numpy at all");
  refused("--input a=" + (dir / "bad.npy") + " --input b=random", "bad.npy: not a .npy file (no \\x93NUMPY magic)");
  refused("--input a=" + (dir / "a.txt") + " --input b=random", "expected a .npy or .pb file, or 'random'");
  refused("--input a", "--input 'a': expected NAME=FILE (.npy or .pb) or NAME=random");
  auto training = test::runDfc("run -p " + pefPath + " --db - --input a=random --input b=random");
  CHECK(training.status == 2);
  CHECK(training.output.find("--input needs --inference") != std::string::npos);
  refused("--input a=random --input b=random --output-dir " + (dir / "a.npy"), "is not a directory");

  // A symlink in the output folder that points out of it is never written through.
  fs::create_directories(dir / "out");
  const std::string victim = dir.write("victim.npy", "keep me");
  fs::create_symlink(victim, dir / "out/y.npy");
  refused("--input a=random --input b=random --output-dir " + (dir / "out"), "is a symlink out of its folder");
  std::ifstream in(victim);
  std::string kept((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(kept == "keep me");
  CHECK(!fs::exists(dir / "out/head%2Fout.npy"));  // every target checked before the run: nothing written
}
