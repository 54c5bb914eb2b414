#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "ArgParser.h"
#include "Commands.h"
#include "driver/Compiler.h"
#include "partition/CompilerMode.h"
#include "support/Logging.h"

namespace dfc::cli {

namespace {

ArgParser compileFlags() {
  ArgParser p("compile", "Compile a model into a PEF (default: training graph, -o3, arch 'native' = sn30).");
  p.add({{"-m", "--model"}, "NAME|FILE", 1,
         "zoo model (logreg, mlp, lenet, gpt2, gpt2-mini, bert, resnet18) or a .dfir text IR file"});
  p.add({{"--num-layers"}, "N", 1, "gpt2/bert: transformer blocks (gpt2 default 12)"});
  p.add({{"--hidden-size"}, "N", 1, "gpt2/bert: model width (gpt2 default 768)"});
  p.add({{"--num-heads"}, "N", 1, "gpt2/bert: attention heads (gpt2 default 12)"});
  p.add({{"--seq-len"}, "N", 1, "gpt2/bert: sequence length (gpt2 default 1024)"});
  p.add({{"--vocab-size"}, "N", 1, "gpt2/bert: vocabulary (gpt2 default 50257; byte-level data needs >= 256)"});
  p.add({{"--num-classes"}, "N", 1, "bert/resnet18: classes of the classification head"});
  p.add({{"--image-size"}, "N", 1, "resnet18: input height and width (default 224)"});
  p.add({{"--in-channels"}, "N", 1, "resnet18: input channels (default 3)"});
  p.add({{"--pef-name"}, "NAME", 1, "name of the PEF (default: the model name)"});
  p.add({{"--output-folder"}, "DIR", 1, "where the PEF and logs go (default: ./out/<pef-name>)"});
  p.add({{"--inference"}, "", 0, "compile the forward graph only (no loss, gradients, optimizer)"});
  p.add({{"-b", "--batch-size"}, "N", 1, "batch size baked into the PEF (default 32)"});
  p.add({{"-o0"}, "", 0, "one operator per section"});
  p.add({{"-o1"}, "", 0, "fusion by rule list (--o1-rule-list); repeated fused subgraphs compile once"});
  p.add({{"-o3"}, "", 0, "whole graph, cut into sections that fit the chip (default)"});
  p.add({{"--arch"}, "NAME|FILE", 1, "sn10, sn20, sn30, sn40l, native (= sn30) or an arch YAML file"});
  p.add({{"--optimizer"}, "NAME", 1, "sgd, momentum (0.9, the default) or adam"});
  p.add({{"--lr"}, "X", 1, "default learning rate stored in the PEF (default 0.01; run --lr overrides)"});
  p.add({{"--seed"}, "N", 1, "weight initialization seed (default 42)"});
  p.add({{"--db"}, "FILE", 1, "run store (default $XDG_DATA_HOME/dataflow-studio/runs.sqlite; '-' = none)"});
  p.add({{"-v", "--verbose"}, "", 0, "print each compile stage"});
  p.add({{"--debug"}, "", 0, "debug logging, IR dumps in the output folder, experimental flags in --help"});
  p.add({{"--log-dir"}, "DIR", 1, "write warnings and errors to DIR/dfc_warnings.log"});
  addMaxMemoryFlag(p);
  p.add({{"-h", "--help"}, "", 0, "show this help"});
  // Later issues: accepted names so users get a clear "not implemented yet".
  p.add({{"--o1-rule-list"}, "NAME|FILE", 1,
         "fusion rule list for -o1: default, nlp, gpt2, bloom, gpt_neox_inf, gpt_neox_train or a YAML file"});
  p.add({{"--compiler-mode"}, "MODE", 1,
         "nlp: tune for transformers. Changes three decisions: -o1 uses rule list 'nlp' instead of 'default' "
         "(--o1-rule-list wins); -o3 turns on --enable-hypersection (a section never spans two layers, repeated "
         "layers compile once); -o3 keeps each attention block (nodes of one .../attn or .../attention scope) in one "
         "section when it fits one, closing the section before it instead of cutting mid-attention"});
  p.add({{"--enable-hypersection"}, "", 0, "-o3: compile each hyperfunction (layer) on its own; repeats compile once"});
  p.add({{"--resources-scaling-factors"}, "F F F [F]", 3,
         "share of the PCUs/PMUs a section may use, in (0, 1]: forward backward optimizer, or forward backward "
         "gradient-normalization optimizer (smaller: more, smaller sections)"});
  p.add({{"--n-chips"}, "N", 1, "chips to map onto (1..8; sections may span chips over PCIe)"});
  p.add({{"--num-tiles"}, "N", 1, "tiles per chip to use (1, 2, 4, 8; default all)"});
  p.add({{"--data-parallel"}, "", 0, "data-parallel compile", false, true});
  p.add({{"-ws", "--world-size"}, "N", 1, "data-parallel world size", false, true});
  p.add({{"--compiler-configs-file"}, "FILE", 1, "compiler configuration overrides", true, true});
  p.add({{"--grad-accumulation-steps"}, "N", 1, "gradient accumulation", true, true});
  p.add({{"--num-spatial-batches"}, "N", 1, "spatial batching", true, true});
  p.add({{"--model-parallel"}, "", 0, "model parallel", true, true});
  p.add({{"--mac-human-decision"}, "FILE", 1, "manual mapping decisions", true, true});
  return p;
}

}  // namespace

// --resources-scaling-factors takes 3 or 4 values; the parser takes a fixed
// count, so an optional 4th number is lifted out of the arguments first.
static std::vector<std::string> liftFourthScalingFactor(std::vector<std::string> args, std::string& fourth) {
  for (size_t i = 0; i + 4 < args.size(); ++i) {
    if (args[i] != "--resources-scaling-factors") continue;
    const std::string& v = args[i + 4];
    char* end = nullptr;
    std::strtod(v.c_str(), &end);
    if (!v.empty() && !v.starts_with("-") && *end == '\0') {
      fourth = v;
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i + 4));
    }
    break;
  }
  return args;
}

int compileCommand(const std::vector<std::string>& args) {
  ArgParser p = compileFlags();
  std::string fourthScale;
  if (auto err = p.parse(liftFourthScalingFactor(args, fourthScale)); !err.empty()) return usageError(err);
  if (p.has("--help")) {
    std::fputs(p.help(p.has("--debug")).c_str(), stdout);
    return 0;
  }
  if (!p.positional().empty()) return usageError("compile: unexpected argument '" + p.positional().front() + "'");
  if (auto flag = p.notImplementedFlag()) return usageError(*flag + " is not implemented yet");
  if (auto rc = applyMaxMemory(p)) return *rc;
  support::LogOptions log{p.has("--verbose"), p.has("--debug"), p.get("--log-dir")};
  if (auto err = support::setupLogging(log); !err.empty()) return usageError(err);

  driver::CompileOptions o;
  o.model = p.get("--model");
  o.pefName = p.get("--pef-name");
  o.outputFolder = p.get("--output-folder");
  o.inference = p.has("--inference");
  if (p.has("--batch-size")) {
    auto b = parseInt("-b/--batch-size", p.get("--batch-size"));
    if (!b) return reportError(b.error());
    o.batchSize = *b;
  }
  int levels = p.has("-o0") + p.has("-o1") + p.has("-o3");
  if (levels > 1) return usageError("choose one of -o0, -o1, -o3");
  if (p.has("-o0")) o.level = partition::OptLevel::O0;
  if (p.has("-o1")) o.level = partition::OptLevel::O1;
  if (p.has("--o1-rule-list")) {
    if (o.level != partition::OptLevel::O1) return usageError("--o1-rule-list needs -o1");
    o.o1RuleList = p.get("--o1-rule-list");
  }
  o.enableHypersection = p.has("--enable-hypersection");
  if (p.has("--compiler-mode")) {
    o.compilerMode = p.get("--compiler-mode");
    if (auto mode = partition::parseCompilerMode(o.compilerMode); !mode) return reportError(mode.error());
  }
  if (p.has("--arch")) o.arch = p.get("--arch");
  if (p.has("--n-chips")) {
    auto n = parseInt("--n-chips", p.get("--n-chips"));
    if (!n) return reportError(n.error());
    if (*n < 1 || *n > 8) return usageError("--n-chips must be 1..8");
    o.nChips = static_cast<int>(*n);
  }
  if (p.has("--num-tiles")) {
    auto n = parseInt("--num-tiles", p.get("--num-tiles"));
    if (!n) return reportError(n.error());
    if (*n != 1 && *n != 2 && *n != 4 && *n != 8) return usageError("--num-tiles must be 1, 2, 4 or 8");
    o.numTiles = static_cast<int>(*n);
  }
  if (p.has("--resources-scaling-factors")) {
    o.scalingFactors = p.getAll("--resources-scaling-factors");
    if (!fourthScale.empty()) o.scalingFactors.push_back(fourthScale);
    for (const std::string& f : o.scalingFactors) {
      auto x = parseDouble("--resources-scaling-factors", f);
      if (!x) return reportError(x.error());
      if (!(*x > 0 && *x <= 1)) return usageError("--resources-scaling-factors: " + f + " is not in (0, 1]");
    }
  }
  if (p.has("--optimizer")) o.optimizer = p.get("--optimizer");
  if (p.has("--lr")) {
    auto lr = parseDouble("--lr", p.get("--lr"));
    if (!lr) return reportError(lr.error());
    if (!(*lr > 0)) return usageError("--lr must be positive");
    o.learningRate = *lr;
  }
  if (p.has("--seed")) {
    auto s = parseInt("--seed", p.get("--seed"));
    if (!s) return reportError(s.error());
    o.seed = static_cast<uint64_t>(*s);
  }
  for (const char* flag : {"--num-layers", "--hidden-size", "--num-heads", "--seq-len", "--vocab-size", "--num-classes",
                           "--image-size", "--in-channels"}) {
    if (!p.has(flag)) continue;
    auto v = parseInt(flag, p.get(flag));
    if (!v) return reportError(v.error());
    std::string key = std::string(flag).substr(2);
    std::replace(key.begin(), key.end(), '-', '_');
    o.modelParams[key] = *v;
  }
  o.dbPath = p.get("--db");
  o.debug = p.has("--debug");
  o.args = {"dfc", "compile"};
  o.args.insert(o.args.end(), args.begin(), args.end());

  auto result = driver::compile(o);
  if (!result) return reportError(result.error());
  std::printf("Compiled %s: %d nodes -> %d sections (%d forward, %d backward, %d optimizer), %lld parameters\n",
              o.model.c_str(), result->numNodes, result->numSections, result->numForward, result->numBackward,
              result->numOptimizer, static_cast<long long>(result->numParams));
  std::printf("Estimated chip latency per step: %.1f us; compile time %.0f ms\n", result->estLatencyUs,
              result->compileMs);
  if (result->hypersectionInstances > result->hypersectionsUnique)
    std::printf("hypersections: %d unique, %d instances; ~%.2f ms saved\n", result->hypersectionsUnique,
                result->hypersectionInstances, result->compileMsSavedEstimate);
  if (result->numBitfiles > 0) {
    std::printf("Placed %d bitfiles: %lld hops on the on-chip network (row-major placement: %lld)\n",
                result->numBitfiles, static_cast<long long>(result->placedHops),
                static_cast<long long>(result->rowMajorHops));
    std::printf("Routed: %lld hops with detours; %s\n", static_cast<long long>(result->routedHops),
                result->overusedLinks == 0 ? "every link within capacity"
                                           : (std::to_string(result->overusedLinks) + " links over capacity").c_str());
  }
  std::printf("PEF: %s\nLog: %s\n", result->pefPath.c_str(), result->logPath.c_str());
  return 0;
}

}  // namespace dfc::cli
