// `dfc estimate` as a user meets it: the breakdown in text and JSON for a
// decode step, a training PEF in samples/s, bad flags refused with exit 2.
#include <catch2/catch.hpp>

#include "driver/compile/Compiler.h"
#include "e2e/TestEnv.h"

using namespace dfc;
using test::runDfc;

namespace {

std::string compileTiny(const test::ScratchDir& dir, bool inference) {
  driver::CompileOptions c;
  c.model = inference ? "llama-tiny" : "mlp";
  c.inference = inference;
  c.batchSize = inference ? 1 : 8;
  if (inference) c.modelParams = {{"seq_len", 1}};
  c.arch = "sn40l";
  c.outputFolder = dir / (inference ? "decode" : "train");
  c.dbPath = "-";
  c.args = c.toArgs();
  auto compiled = driver::compile(c);
  if (!compiled) FAIL(compiled.error().message());
  return compiled->pefPath;
}

}  // namespace

TEST_CASE("dfc estimate: tokens/s of a decode step split into compute, memory and communication") {
  test::ScratchDir dir("estimate-cli");
  const std::string pef = compileTiny(dir, true);
  auto text = runDfc("estimate " + pef + " --n-chips 2 --kv-cache-len 64");
  INFO(text.output);
  REQUIRE(text.status == 0);
  CHECK_THAT(text.output, Catch::Contains("tokens/s"));
  CHECK_THAT(text.output, Catch::Contains("communication"));
  CHECK_THAT(text.output, Catch::Contains("bound: "));
  CHECK_THAT(text.output, Catch::Contains("HBM"));
  auto json = runDfc("estimate -p " + pef + " --n-chips 2 --kv-cache-len 64 --fusion section --json");
  REQUIRE(json.status == 0);
  CHECK_THAT(json.output, Catch::Contains("\"kind\":\"decode\""));
  CHECK_THAT(json.output, Catch::Contains("\"fusion\":\"section\""));
  CHECK_THAT(json.output, Catch::Contains("\"sections\":["));
}

TEST_CASE("dfc estimate: a training PEF in samples/s, bad flags exit 2 naming the flag") {
  test::ScratchDir dir("estimate-cli-train");
  const std::string pef = compileTiny(dir, false);
  auto ok = runDfc("estimate " + pef);
  INFO(ok.output);
  CHECK(ok.status == 0);
  CHECK_THAT(ok.output, Catch::Contains("samples/s"));
  for (const char* bad : {"--n-chips 2", "--fusion bogus", "--kv-cache-len 0", "--element-bytes nan", "--arch nope"}) {
    auto r = runDfc("estimate " + pef + " " + bad);
    INFO(bad << ": " << r.output);
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::StartsWith("dfc: error: --"));
  }
}
