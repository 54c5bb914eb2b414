// CompileOptions::toArgs() is the command line dfc and dfstudio record for a
// compile: parsed back with dfc's own parser it must give the same options.
#include <algorithm>
#include <catch2/catch.hpp>
#include <vector>

#include "CompileFlags.h"
#include "driver/compile/CompileOptions.h"

using namespace dfc;

namespace {

driver::CompileOptions parsedBack(const driver::CompileOptions& o) {
  std::vector<std::string> args = o.toArgs();
  REQUIRE(args.size() > 2);
  CHECK(args[0] == "dfc");
  CHECK(args[1] == "compile");
  auto parsed = cli::parseCompileOptions({args.begin() + 2, args.end()});
  INFO((parsed ? std::string() : parsed.error().message()));
  REQUIRE(parsed.ok());
  return *parsed;
}

std::vector<driver::CompileOptions> examples() {
  std::vector<driver::CompileOptions> out;
  driver::CompileOptions plain;
  plain.model = "lenet";
  out.push_back(plain);

  driver::CompileOptions every = plain;
  every.model = "gpt2";
  every.pefName = "gpt2 small";  // spaces travel as one argument
  every.outputFolder = "/tmp/out dir";
  every.batchSize = 7;
  every.level = partition::OptLevel::O1;
  every.o1RuleList = "gpt2";
  every.compilerMode = "nlp";
  every.arch = "sn40l";
  every.nChips = 2;
  every.numTiles = 4;
  every.scalingFactors = {"1", "0.8", "0.25", "0.5"};
  every.modelParams = {{"num_layers", 2}, {"hidden_size", 64}, {"num_heads", 4}, {"seq_len", 32}, {"vocab_size", 256}};
  every.optimizer = "adam";
  every.learningRate = 0.1 + 0.2;  // not a short decimal: the text must still be exact
  every.seed = 1234567;
  every.gradAccumulationSteps = 4;
  every.compilerConfigsFile = "knobs file.yaml";
  every.macV2 = true;
  every.macHumanDecision = "my decisions.yaml";
  every.modelParallel = true;
  every.debug = true;
  every.dbPath = "-";
  out.push_back(every);

  driver::CompileOptions inference = plain;
  inference.model = "resnet18";
  inference.inference = true;
  inference.level = partition::OptLevel::O0;
  inference.enableHypersection = true;
  inference.scalingFactors = {"0.5", "0.5", "0.5"};
  inference.modelParams = {{"image_size", 64}, {"num_classes", 10}, {"in_channels", 1}};
  out.push_back(inference);
  return out;
}

}  // namespace

TEST_CASE("dfc parses toArgs() back into the same compile options") {
  for (const driver::CompileOptions& o : examples()) {
    INFO("model " << o.model);
    CHECK(parsedBack(o) == o);
  }
}

TEST_CASE("a dfc command line and its toArgs() mean the same compile") {
  auto typed = cli::parseCompileOptions({"--model", "gpt2-mini", "-o1", "--o1-rule-list", "nlp", "-b", "8",
                                         "--resources-scaling-factors", "1", "0.5", "0.5", "--num-layers", "3",
                                         "--lr", "0.05"});
  REQUIRE(typed.ok());
  CHECK(typed->batchSize == 8);
  CHECK(typed->scalingFactors.size() == 3);
  CHECK(typed->modelParams.at("num_layers") == 3);
  CHECK(parsedBack(*typed) == *typed);
  // Canonical: the same options give the same line, whatever order they were typed in.
  auto reordered = cli::parseCompileOptions({"--lr", "0.05", "--num-layers", "3", "-b", "8", "-o1", "--model",
                                             "gpt2-mini", "--resources-scaling-factors", "1", "0.5", "0.5",
                                             "--o1-rule-list", "nlp"});
  REQUIRE(reordered.ok());
  CHECK(reordered->toArgs() == typed->toArgs());
}

TEST_CASE("dfc's parser names the flag of a malformed value") {
  auto bad = cli::parseCompileOptions({"--model", "lenet", "-b", "zero"});
  REQUIRE(!bad);
  CHECK(bad.error().message().find("-b/--batch-size") != std::string::npos);
  auto level = cli::parseCompileOptions({"--model", "lenet", "-o3", "--o1-rule-list", "gpt2"});
  REQUIRE(!level);
  CHECK(level.error().message().find("--o1-rule-list needs -o1") != std::string::npos);
}

TEST_CASE("grad accumulation steps are parsed, recorded and checked") {
  auto k = cli::parseCompileOptions({"--model", "mlp", "--grad-accumulation-steps", "4", "-b", "8"});
  REQUIRE(k.ok());
  CHECK(k->gradAccumulationSteps == 4);
  CHECK(k->validate().ok());
  for (const char* bad : {"0", "100000"}) {
    auto o = cli::parseCompileOptions({"--model", "mlp", "--grad-accumulation-steps", bad});
    REQUIRE(o.ok());
    auto st = o->validate();
    REQUIRE(!st);
    CHECK(st.error().message().find("--grad-accumulation-steps") != std::string::npos);
  }
  auto inference = cli::parseCompileOptions({"--model", "mlp", "--inference", "--grad-accumulation-steps", "2"});
  REQUIRE(inference.ok());
  auto st = inference->validate();
  REQUIRE(!st);
  CHECK(st.error().message().find("training") != std::string::npos);
}

TEST_CASE("dfc compile --help lists --mac-v2 as implemented, saying what it selects") {
  const std::string help = cli::compileFlags().help(true);
  const size_t flag = help.find("--mac-v2");
  REQUIRE(flag != std::string::npos);
  const size_t refused = help.find("not implemented yet");
  CHECK((refused == std::string::npos || flag < refused));  // listed above the refused flags
  CHECK(help.find("legacy mapping path", flag) != std::string::npos);
  auto parsed = cli::parseCompileOptions({"--model", "lenet", "--mac-v2"});
  REQUIRE(parsed.ok());
  CHECK(parsed->macV2);
}

TEST_CASE("llama's --num-kv-heads and --intermediate-size are parsed, recorded and checked") {
  auto o = cli::parseCompileOptions({"--model", "llama-tiny", "--num-heads", "8", "--num-kv-heads", "2",
                                     "--intermediate-size", "344"});
  REQUIRE(o.ok());
  CHECK(o->modelParams.at("num_kv_heads") == 2);
  CHECK(o->modelParams.at("intermediate_size") == 344);
  CHECK(o->validate().ok());
  const auto args = o->toArgs();
  CHECK(std::find(args.begin(), args.end(), "--num-kv-heads") != args.end());
  CHECK(std::find(args.begin(), args.end(), "--intermediate-size") != args.end());
  CHECK(parsedBack(*o) == *o);
  auto bad = cli::parseCompileOptions({"--model", "llama", "--num-heads", "32", "--num-kv-heads", "5"});
  REQUIRE(bad.ok());
  auto st = bad->validate();
  REQUIRE(!st);
  CHECK(st.error().message().find("--num-kv-heads 5 must divide --num-heads 32") != std::string::npos);
}
