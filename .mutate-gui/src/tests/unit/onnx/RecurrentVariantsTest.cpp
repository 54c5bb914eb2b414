// LSTM, GRU and RNN in every attribute variant the importer branches on
// (onnx/MapRecurrent.cpp): direction forward, reverse and bidirectional;
// layout 0 and 1; bias, initial_h, initial_c, peepholes and sequence_lens
// present and absent; Y, Y_h and Y_c each wanted or not; clip;
// linear_before_reset 0 and 1; activations (with alphas and betas) per
// direction. The cases in tests/data/onnx/recurrent were written by its
// generate.py from a numpy reference of the ONNX spec (checked there against
// onnx's own one-direction helpers); each must import, compile and match at
// -o0 and -o3.
#include <catch2/catch.hpp>
#include <filesystem>

#include "driver/run/Conformance.h"

using namespace dfc;

namespace {

size_t caseFolders(const std::string& dir) {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    n += e.is_directory() && std::filesystem::exists(e.path() / "model.onnx");
  return n;
}

void runAll(partition::OptLevel level) {
  const std::string dir = std::string(DFC_TEST_DATA_DIR) + "/onnx/recurrent";
  driver::ConformanceOptions options;
  options.level = level;
  options.rtol = 1e-4;
  options.atol = 1e-5;
  auto summary = driver::runConformance(dir, options);
  REQUIRE(summary);
  for (const auto& c : summary->cases) {
    INFO(driver::formatCaseLine(c));
    CHECK(c.status == driver::CaseStatus::Pass);
  }
  CHECK(summary->failed == 0);
  CHECK(summary->unsupported == 0);
  CHECK(static_cast<size_t>(summary->passed) == caseFolders(dir));
  CHECK(caseFolders(dir) >= 22);
}

}  // namespace

TEST_CASE("recurrent variants: every direction, layout, optional input and activation matches the spec at -o0", "[onnx][recurrent]") {
  runAll(partition::OptLevel::O0);
}

TEST_CASE("recurrent variants: the same cases at -o3", "[onnx][recurrent]") {
  runAll(partition::OptLevel::O3);
}
