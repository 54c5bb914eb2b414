// driver/RunInputs.h: binding `--input NAME=FILE|random` to a graph's inputs,
// the random data's contract, the output summary line, escaped file names and
// the output folder's checks.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>

#include "driver/run/RunInputs.h"
#include "ir/NpyFile.h"
#include "support/FileUtil.h"

using namespace dfc;
namespace fs = std::filesystem;

namespace {

ir::Graph twoInputs() {
  ir::Graph g;
  g.addInput("x", {ir::DType::F32, {2, 3}});  // addInput appends to g.inputs
  g.addInput("ids", {ir::DType::I64, {4}});
  return g;
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("dfc-runinputs-" + std::to_string(std::random_device{}()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

std::string message(const auto& expected) { return expected ? std::string("ok") : expected.error().message(); }

}  // namespace

TEST_CASE("parseInputBinding splits NAME=SOURCE at the first '='", "[run-inputs]") {
  auto b = driver::parseInputBinding("x=dir/a=b.npy");
  REQUIRE(b);
  CHECK(b->name == "x");
  CHECK(b->source == "dir/a=b.npy");
  for (const char* bad : {"x", "=a.npy", "x="})
    CHECK(message(driver::parseInputBinding(bad)) ==
          std::string("--input '") + bad + "': expected NAME=FILE (.npy or .pb) or NAME=random");
}

TEST_CASE("random inputs: one mt19937_64 stream from the seed, in the graph's order", "[run-inputs]") {
  const ir::Graph g = twoInputs();
  auto bound = driver::bindInputs(g, {{"ids", "random"}, {"x", "random"}}, 7);
  REQUIRE(bound);
  REQUIRE(bound->size() == 2);
  CHECK((*bound)[0].value == g.inputs[0]);  // graph order, not the order given
  CHECK((*bound)[0].from == "random (seed 7)");
  std::mt19937_64 rng(7);
  for (int i = 0; i < 6; ++i)  // f32: the top 24 bits over 2^24, so in [0, 1)
    CHECK((*bound)[0].tensor.data<float>()[i] == static_cast<float>(rng() >> 40) * 0x1p-24f);
  for (int i = 0; i < 4; ++i)  // integers: the top 2 bits, in [0, 4)
    CHECK((*bound)[1].tensor.data<int64_t>()[i] == static_cast<int64_t>(rng() >> 62));
  auto other = driver::bindInputs(g, {{"ids", "random"}, {"x", "random"}}, 8);
  REQUIRE(other);
  CHECK((*other)[0].tensor.data<float>()[0] != (*bound)[0].tensor.data<float>()[0]);
}

TEST_CASE("bindInputs names a missing, unknown, repeated or mistyped input", "[run-inputs]") {
  TempDir dir;
  const ir::Graph g = twoInputs();
  CHECK(message(driver::bindInputs(g, {{"x", "random"}}, 1)) ==
        "input 'ids' (i64[4]) is not bound: give --input ids=FILE or --input ids=random (the PEF's inputs: x, ids)");
  CHECK(message(driver::bindInputs(g, {{"y", "random"}}, 1)) ==
        "--input y: the PEF has no input 'y' (its inputs: x, ids)");
  CHECK(message(driver::bindInputs(g, {{"x", "random"}, {"x", "random"}}, 1)) == "--input x is given twice");
  ir::Tensor wrong(ir::TensorType{ir::DType::F32, {3, 2}});
  REQUIRE(support::writeFileAtomic(dir / "x.npy", ir::encodeNpy(wrong)));
  CHECK(message(driver::bindInputs(g, {{"x", dir / "x.npy"}, {"ids", "random"}}, 1)) ==
        "--input x=" + (dir / "x.npy") + ": input 'x' needs f32[2,3], given f32[3,2]");
  ir::Tensor right(ir::TensorType{ir::DType::F32, {2, 3}});
  right.data<float>()[5] = 2.5f;
  REQUIRE(support::writeFileAtomic(dir / "x.npy", ir::encodeNpy(right)));
  auto bound = driver::bindInputs(g, {{"x", dir / "x.npy"}, {"ids", "random"}}, 1);
  REQUIRE(bound);
  CHECK((*bound)[0].tensor.data<float>()[5] == 2.5f);
  CHECK((*bound)[0].from == dir / "x.npy");
}

TEST_CASE("summarizeTensor gives min, max, mean and the first six values", "[run-inputs]") {
  ir::Tensor t(ir::TensorType{ir::DType::F32, {7}});
  const float values[] = {1, -1.5f, 2, 0.25f, 0, 0, 5};
  std::copy(std::begin(values), std::end(values), t.data<float>());
  CHECK(driver::summarizeTensor(t) == "min -1.5, max 5, mean 0.964286, first [1, -1.5, 2, 0.25, 0, 0, ...]");
  ir::Tensor six(ir::TensorType{ir::DType::I32, {6}});
  CHECK(driver::summarizeTensor(six) == "min 0, max 0, mean 0, first [0, 0, 0, 0, 0, 0]");
  CHECK(driver::summarizeTensor(ir::Tensor(ir::TensorType{ir::DType::F32, {0}})) == "no elements");
}

TEST_CASE("safeFileName keeps [A-Za-z0-9_.-] and escapes every other byte", "[run-inputs]") {
  CHECK(driver::safeFileName("logits_0.out-1") == "logits_0.out-1");
  CHECK(driver::safeFileName("/conv/Conv_output_0") == "%2Fconv%2FConv_output_0");
  CHECK(driver::safeFileName("..") == "%2E.");
  CHECK(driver::safeFileName(".hidden") == "%2Ehidden");
  CHECK(driver::safeFileName("a b:\xc3\xa9") == "a%20b%3A%C3%A9");
  CHECK(driver::safeFileName("") == "%00");
}

TEST_CASE("writeOutputs writes NAME.npy files in the folder and refuses to write through a link out of it",
          "[run-inputs]") {
  TempDir dir;
  ir::Tensor y(ir::TensorType{ir::DType::F32, {2}});
  y.data<float>()[1] = 3.0f;
  auto written = driver::writeOutputs(dir / "out", {{"y", y}, {"../up", y}});
  REQUIRE(written);
  CHECK(*written == std::vector<std::string>{dir / "out/y.npy", dir / "out/%2E.%2Fup.npy"});
  CHECK(support::readFile(dir / "out/y.npy").value() == ir::encodeNpy(y));
  CHECK(!fs::exists(dir / "up.npy"));

  std::ofstream(dir / "victim") << "keep";
  fs::create_directories(dir / "linked");
  fs::create_symlink(dir / "victim", dir / "linked/y.npy");
  CHECK(message(driver::writeOutputs(dir / "linked", {{"a", y}, {"y", y}})).find("is a symlink out of its folder") !=
        std::string::npos);
  CHECK(!fs::exists(dir / "linked/a.npy"));  // checked before any write
  CHECK(support::readFile(dir / "victim").value() == "keep");
  CHECK(message(driver::checkOutputTargets(dir / "victim", {"y"})) ==
        "--output-dir " + (dir / "victim") + ": is not a directory");
}
