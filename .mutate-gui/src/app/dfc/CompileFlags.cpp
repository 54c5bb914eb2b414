#include <cstdlib>

#include "CompileFlags.h"
#include "Commands.h"

namespace dfc::cli {

namespace {
void addMappingFlags(ArgParser& p);
}  // namespace

ArgParser compileFlags() {
  ArgParser p("compile", "Compile a model into a PEF (default: training graph, -o3, arch 'native' = sn30).");
  p.add({{"-m", "--model"}, "NAME|FILE", 1,
         "zoo model (logreg, mlp, lenet, gpt2, gpt2-mini, bert, resnet18, llama, llama-tiny, bloom, bloom-tiny, "
         "gpt-neox, neox-tiny), a .dfir text IR file or an .onnx file"});
  p.add({{"--num-layers"}, "N", 1, "transformers: transformer blocks (gpt2 default 12)"});
  p.add({{"--hidden-size"}, "N", 1, "transformers: model width (gpt2 default 768)"});
  p.add({{"--num-heads"}, "N", 1, "transformers: attention heads (gpt2 default 12)"});
  p.add({{"--num-kv-heads"}, "N", 1, "llama: key/value heads of grouped-query attention (default: --num-heads)"});
  p.add({{"--intermediate-size"}, "N", 1, "llama: SwiGLU MLP width (llama default 11008)"});
  p.add({{"--seq-len"}, "N", 1, "transformers: sequence length (gpt2 default 1024)"});
  p.add({{"--vocab-size"}, "N", 1, "transformers: vocabulary (gpt2 default 50257; byte-level data needs >= 256)"});
  p.add({{"--num-classes"}, "N", 1, "bert/resnet18: classes of the classification head"});
  p.add({{"--image-size"}, "N", 1, "resnet18: input height and width (default 224)"});
  p.add({{"--in-channels"}, "N", 1, "resnet18: input channels (default 3)"});
  p.add({{"--pef-name"}, "NAME", 1, "name of the PEF (default: the model name)"});
  p.add({{"--output-folder"}, "DIR", 1, "where the PEF and logs go (default: ./out/<pef-name>)"});
  p.add({{"--inference"}, "", 0, "compile the forward graph only (no loss, gradients, optimizer)"});
  p.add({{"--decode"}, "", 0,
         "with --inference, zoo decoders (gpt2, llama, bloom, gpt-neox and their tiny forms): compile the "
         "single-token decode step, each layer's K and V cache persistent state of --kv-cache-len rows "
         "(`dfc run --decode` generates tokens with it)"});
  p.add({{"--kv-cache-len"}, "N", 1, "with --decode: rows of each KV cache, the longest prompt + generation"});
  p.add({{"--decode-tokens"}, "T", 1,
         "with --decode: tokens of a sequence each step takes, at consecutive positions (default 1; 1..64): "
         "the target of speculative decoding (`dfc run --decode --draft-pef`) checks T - 1 draft tokens a step"});
  p.add({{"-b", "--batch-size"}, "N", 1, "batch size baked into the PEF (default 32)"});
  p.add({{"--input-shape"}, "NAME=DxD...", 1,
         ".onnx models: the shape of input NAME (repeatable), e.g. images=1x3x640x640; a named dynamic dimension "
         "it binds applies to every input; a dynamic first dimension left unbound takes -b, any other is refused"});
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
  addMappingFlags(p);
  return p;
}

namespace {

// The SambaFlow compile reference's decomposition, chip and mapping flags, after the basic ones in --help.
void addMappingFlags(ArgParser& p) {
  // Later issues: accepted names so users get a clear "not implemented yet".
  p.add({{"--o1-rule-list"}, "NAME|FILE", 1,
         "fusion rule list for -o1: default, nlp, gpt2, bloom, gpt_neox_inf, gpt_neox_train, llama or a YAML file"});
  p.add({{"--compiler-mode"}, "MODE", 1,
         "nlp: tune for transformers. Changes three decisions: -o1 uses rule list 'nlp' instead of 'default' "
         "(--o1-rule-list wins); -o3 turns on --enable-hypersection (a section never spans two layers, repeated "
         "layers compile once); -o3 keeps each attention block (nodes of one .../attn or .../attention scope) in one "
         "section when it fits one, closing the section before it instead of cutting mid-attention"});
  p.add({{"--enable-hypersection"}, "", 0, "-o3: compile each hyperfunction (layer) on its own; repeats compile once"});
  p.add({{"--resources-scaling-factors"}, "F F F [F]", 3,
         "share of the PCUs/PMUs a section may use, in (0, 1]: forward backward optimizer, or forward backward "
         "gradient-normalization optimizer (smaller: more, smaller sections)"});
  p.add({{"--n-chips"}, "N", 1, "chips to map onto (1..8; 1..16 with --inference; sections may span chips over PCIe; `dfc estimate` splits an inference PEF tensor-parallel over them)"});
  p.add({{"--num-tiles"}, "N", 1, "tiles per chip to use (1, 2, 4, 8; default all)"});
  p.add({{"--data-parallel"}, "", 0,
         "add gradient-reduce sections (role 'reduce', one allreduce per gradient bucket) between backward and "
         "optimizer, for `mpirun -np N dfc run --data-parallel`"});
  p.add({{"-ws", "--world-size"}, "N", 1, "with --data-parallel: the replicas (N >= 2) the cost model plans for"});
  p.add({{"--allreduce-bucket-kb"}, "N", 1,
         "with --data-parallel: gradient bucket size in KiB (default: the collective cost model's choice)"});
  p.add({{"--compiler-configs-file"}, "FILE", 1,
         "YAML or JSON overriding the compiler's knobs: fusion limits, section-size caps, cost-model constants, "
         "allreduce buckets, placer and router (fusion.max_subgraph_ops, mapping.max_section_ops, cost.target_cycles, "
         "placer.max_moves, ...: `dfc inspect --config` lists them with defaults and ranges); unknown keys are refused"});
  p.add({{"--grad-accumulation-steps"}, "K", 1,
         "accumulate the gradients of K micro-batches of -b samples (an accumulate section) before each optimizer "
         "step: K x -b samples per step (default 1)"});
  p.add({{"--num-spatial-batches"}, "N", 1,
         "image models: cut the image into N bands of rows (along H) with halos; each band runs the conv/pool "
         "prefix in turn and the bands are joined before the first layer that mixes rows (global pool, flatten). "
         "Same result, smaller per-pass activations, halo rows computed twice (`dfc inspect` shows the plan). "
         "Training with N > 1 is refused over batch_norm (per-band batch statistics)"});
  p.add({{"--model-parallel"}, "", 0,
         "place sections on the chips the --mac-human-decision file names (`nodes: PATTERN` + `chip: N`, N < "
         "--n-chips); a section lives on one chip and values crossing chips are charged over PCIe"});
  p.add({{"--mac-human-decision"},
         "FILE",
         1,
         "YAML decisions the mapper honours or refuses naming the line: `together: PATTERN` (one section), "
         "`cut_before: PATTERN` (a section starts there), with --model-parallel `nodes: PATTERN` + `chip: N`; "
         "patterns are operator names or globs (h.0/mlp/*); docs/cli.md has the format"});
  p.add({{"--allow-overuse"}, "", 0,
         "write the PEF even when routing leaves links over capacity after the retries (an illegal executable, "
         "to investigate; without it such a compile fails with exit 2 naming the sections)", true});
  p.add({{"--mac-v2"},
         "",
         0,
         "the legacy mapping path, kept selectable: the first section cutter (a subgraph cut into several sections "
         "compiles each piece as its own hypersection; no nlp attention-block rule) and the first placer (bounded "
         "annealing schedule); same sections' results, different hypersections and placement"});
}

}  // namespace

std::vector<std::string> liftFourthScalingFactor(std::vector<std::string> args, std::string& fourth) {
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

namespace {

// An integer flag, if given; the error names the flag as `label` (default: the flag).
Status setInt(const ArgParser& p, const std::string& flag, int64_t& out, const std::string& label = {}) {
  if (!p.has(flag)) return {};
  auto v = parseInt(label.empty() ? flag : label, p.get(flag));
  if (!v) return v.error();
  out = *v;
  return {};
}

Status setInt(const ArgParser& p, const std::string& flag, int& out) {
  int64_t v = out;
  DFC_TRY(setInt(p, flag, v));
  out = static_cast<int>(v);
  return {};
}

Status setLevel(const ArgParser& p, driver::CompileOptions& o) {
  int levels = p.has("-o0") + p.has("-o1") + p.has("-o3");
  if (levels > 1) return makeError("choose one of -o0, -o1, -o3");
  if (p.has("-o0")) o.level = partition::OptLevel::O0;
  if (p.has("-o1")) o.level = partition::OptLevel::O1;
  if (p.has("--o1-rule-list")) {
    if (o.level != partition::OptLevel::O1) return makeError("--o1-rule-list needs -o1");
    o.o1RuleList = p.get("--o1-rule-list");
  }
  return {};
}

}  // namespace

Expected<driver::CompileOptions> compileOptionsFrom(const ArgParser& p, const std::string& fourthScale) {
  driver::CompileOptions o;
  o.model = p.get("--model");
  o.pefName = p.get("--pef-name");
  o.outputFolder = p.get("--output-folder");
  o.inference = p.has("--inference");
  o.decode = p.has("--decode");
  DFC_TRY(setInt(p, "--kv-cache-len", o.kvCacheLen));
  DFC_TRY(setInt(p, "--decode-tokens", o.decodeTokens));
  DFC_TRY(setInt(p, "--batch-size", o.batchSize, "-b/--batch-size"));
  o.inputShapes = p.getAll("--input-shape");
  DFC_TRY(setLevel(p, o));
  o.enableHypersection = p.has("--enable-hypersection");
  o.compilerMode = p.get("--compiler-mode");
  if (p.has("--arch")) o.arch = p.get("--arch");
  DFC_TRY(setInt(p, "--n-chips", o.nChips));
  DFC_TRY(setInt(p, "--num-tiles", o.numTiles));
  if (p.has("--resources-scaling-factors")) {
    o.scalingFactors = p.getAll("--resources-scaling-factors");
    if (!fourthScale.empty()) o.scalingFactors.push_back(fourthScale);
  }
  if (p.has("--optimizer")) o.optimizer = p.get("--optimizer");
  if (p.has("--lr")) {
    auto lr = parseDouble("--lr", p.get("--lr"));
    if (!lr) return lr.error();
    o.learningRate = *lr;
  }
  int64_t seed = static_cast<int64_t>(o.seed);
  DFC_TRY(setInt(p, "--seed", seed));
  DFC_TRY(setInt(p, "--grad-accumulation-steps", o.gradAccumulationSteps));
  DFC_TRY(setInt(p, "--num-spatial-batches", o.numSpatialBatches));
  o.seed = static_cast<uint64_t>(seed);
  for (const std::string& flag : driver::modelParamFlags()) {
    int64_t value = 0;
    DFC_TRY(setInt(p, flag, value));
    if (p.has(flag)) o.modelParams[driver::modelParamName(flag)] = value;
  }
  o.dataParallel = p.has("--data-parallel");
  DFC_TRY(setInt(p, "--world-size", o.worldSize));
  DFC_TRY(setInt(p, "--allreduce-bucket-kb", o.allreduceBucketKb));
  o.dbPath = p.get("--db");
  o.compilerConfigsFile = p.get("--compiler-configs-file");
  o.macV2 = p.has("--mac-v2");
  o.allowOveruse = p.has("--allow-overuse");
  o.macHumanDecision = p.get("--mac-human-decision");
  o.modelParallel = p.has("--model-parallel");
  o.debug = p.has("--debug");
  return o;
}

Expected<driver::CompileOptions> parseCompileOptions(const std::vector<std::string>& args) {
  ArgParser p = compileFlags();
  std::string fourthScale;
  if (auto err = p.parse(liftFourthScalingFactor(args, fourthScale)); !err.empty()) return makeError(err);
  if (!p.positional().empty()) return makeError("compile: unexpected argument '" + p.positional().front() + "'");
  return compileOptionsFrom(p, fourthScale);
}

}  // namespace dfc::cli
