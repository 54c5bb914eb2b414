#include "driver/compile/CompileOptions.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>

#include "frontend/ModelZoo.h"
#include "onnx/InputShapes.h"

namespace dfc::driver {
namespace fs = std::filesystem;

Expected<partition::OptLevel> parseOptLevel(const std::string& text) {
  std::string t = text;
  while (!t.empty() && t.front() == '-') t.erase(t.begin());
  if (!t.empty() && t.front() == 'o') t.erase(t.begin());
  if (t == "0") return partition::OptLevel::O0;
  if (t == "1") return partition::OptLevel::O1;
  if (t == "3") return partition::OptLevel::O3;
  return makeError("unknown optimization level '" + text + "' (use -o0, -o1 or -o3)");
}

const std::vector<std::string>& modelParamFlags() {
  static const std::vector<std::string> kFlags = {"--num-layers",  "--hidden-size",  "--num-heads",
                                                  "--num-kv-heads", "--intermediate-size", "--seq-len",
                                                  "--vocab-size",  "--num-classes",  "--image-size", "--in-channels"};
  return kFlags;
}

std::string modelParamFlag(const std::string& param) {
  std::string flag = "--" + param;
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

std::string modelParamName(const std::string& flag) {
  std::string name = flag.starts_with("--") ? flag.substr(2) : flag;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

namespace {

Expected<autograd::Optimizer> parseOptimizer(const std::string& name) {
  if (name == "sgd") return autograd::Optimizer::Sgd;
  if (name == "momentum") return autograd::Optimizer::Momentum;
  if (name == "adam") return autograd::Optimizer::Adam;
  return makeError("--optimizer " + name + ": unknown (use sgd, momentum or adam)");
}

constexpr int kMaxGradAccumulationSteps = 4096;
constexpr int kMaxSpatialBatches = 1024;

Status checkDataParallel(const CompileOptions& o) {
  if (!o.dataParallel) {
    if (o.worldSize != 0) return makeError("-ws/--world-size needs --data-parallel");
    if (o.allreduceBucketKb != 0) return makeError("--allreduce-bucket-kb needs --data-parallel");
    return {};
  }
  if (o.worldSize == 0) return makeError("--data-parallel needs -ws/--world-size N (the replicas, at least 2)");
  if (o.worldSize < 2 || o.worldSize > 4096)
    return makeError("-ws/--world-size " + std::to_string(o.worldSize) + ": expected 2..4096 replicas");
  if (o.inference) return makeError("--data-parallel reduces gradients: it cannot be combined with --inference");
  if (o.allreduceBucketKb < 0 || o.allreduceBucketKb > (int64_t{1} << 30))
    return makeError("--allreduce-bucket-kb " + std::to_string(o.allreduceBucketKb) + ": expected 1..1073741824 (0: the cost model's choice)");
  return {};
}

// Model flags the zoo builders would refuse later, caught before any work
// (the builders check the defaults they fill in themselves).
Status checkModelParams(const CompileOptions& o) {
  auto given = [&](const char* key) { return o.modelParams.count(key) ? o.modelParams.at(key) : int64_t{0}; };
  const int64_t heads = given("num_heads"), kvHeads = given("num_kv_heads");
  if (heads > 0 && kvHeads > 0 && heads % kvHeads != 0)
    return makeError("--num-kv-heads " + std::to_string(kvHeads) + " must divide --num-heads " + std::to_string(heads) +
                     " (each key/value head serves a group of query heads)");
  return {};
}

constexpr int64_t kMaxKvCacheLen = int64_t{1} << 31;  // the zoo's bound on a size; the memory budget comes first

// --decode: an inference compile of a zoo decoder with a KV cache length.
Status checkDecode(const CompileOptions& o) {
  if (!o.decode) {
    if (o.kvCacheLen != 0) return makeError("--kv-cache-len needs --decode");
    if (o.decodeTokens != 1) return makeError("--decode-tokens needs --decode");
    return {};
  }
  if (o.decodeTokens < 1 || o.decodeTokens > frontend::kMaxDecodeTokens)
    return makeError("--decode-tokens " + std::to_string(o.decodeTokens) + ": must be 1.." +
                     std::to_string(frontend::kMaxDecodeTokens));
  if (!o.inference) return makeError("--decode builds an inference step: add --inference (a decode step does not train)");
  if (o.kvCacheLen < 1 || o.kvCacheLen > kMaxKvCacheLen)
    return makeError("--decode needs --kv-cache-len N with N in 1.." + std::to_string(kMaxKvCacheLen) +
                     (o.kvCacheLen == 0 ? std::string(", none given") : ", got " + std::to_string(o.kvCacheLen)));
  if (!frontend::isZooDecoder(o.model)) {
    std::string decoders;
    for (const std::string& name : frontend::zooModelNames())
      if (frontend::isZooDecoder(name)) decoders += (decoders.empty() ? "" : ", ") + name;
    return makeError("--decode: model '" + o.model + "' is not a decoder of the zoo (decoders: " + decoders + ")");
  }
  if (o.numSpatialBatches != 1) return makeError("--num-spatial-batches tiles images: it cannot be combined with --decode");
  return {};
}

// Checks of single values that need no file (arch::scaleArch checks --n-chips and --num-tiles).
Status checkValues(const CompileOptions& o) {
  if (o.model.empty()) return makeError("--model is required (a zoo name: logreg, mlp, lenet; or a .dfir file)");
  if (o.batchSize < 1) return makeError("-b/--batch-size must be at least 1");
  if (!o.inputShapes.empty() && !o.model.ends_with(".onnx"))
    return makeError("--input-shape applies to .onnx models (model '" + o.model + "' has fixed input shapes)");
  if (auto shapes = onnx::parseInputShapes(o.inputShapes); !shapes) return shapes.error();
  if (o.level != partition::OptLevel::O0 && o.level != partition::OptLevel::O1 && o.level != partition::OptLevel::O3)
    return makeError("unknown optimization level (use -o0, -o1 or -o3)");
  if (!(o.learningRate > 0) || !std::isfinite(o.learningRate)) return makeError("--lr must be a positive finite number");
  if (o.gradAccumulationSteps < 1 || o.gradAccumulationSteps > kMaxGradAccumulationSteps)
    return makeError("--grad-accumulation-steps must be in 1.." + std::to_string(kMaxGradAccumulationSteps) + ", got " +
                     std::to_string(o.gradAccumulationSteps));
  if (o.gradAccumulationSteps > 1 && o.inference)
    return makeError("--grad-accumulation-steps needs a training compile (not --inference)");
  if (o.gradAccumulationSteps > 1 && o.dataParallel)
    return makeError("--grad-accumulation-steps with --data-parallel is not supported yet (one or the other)");
  if (o.modelParallel && o.macHumanDecision.empty())
    return makeError("--model-parallel requires a human decision file (--mac-human-decision FILE naming each section's chip)");
  if (o.numSpatialBatches < 1 || o.numSpatialBatches > kMaxSpatialBatches)
    return makeError("--num-spatial-batches must be in 1.." + std::to_string(kMaxSpatialBatches) + ", got " +
                     std::to_string(o.numSpatialBatches));
  DFC_TRY(checkModelParams(o));
  DFC_TRY(checkDecode(o));
  return checkDataParallel(o);
}

// The arch preset or file, scaled to the chips and tiles asked for.
Expected<arch::ArchSpec> loadScaledArch(const CompileOptions& o) {
  auto loaded = arch::loadArch(o.arch);
  if (!loaded) {
    const std::string& m = loaded.error().message();
    return m.starts_with("--arch") ? loaded.error() : loaded.error().withContext("--arch " + o.arch);
  }
  return arch::scaleArch(*loaded, o.nChips, o.numTiles, o.inference ? arch::kMaxInferenceChips : arch::kMaxTrainingChips);
}

}  // namespace

Expected<ResolvedOptions> CompileOptions::resolve() const {
  DFC_TRY(checkValues(*this));
  ResolvedOptions r;
  r.pefName = pefName.empty() ? fs::path(model).stem().string() : pefName;
  if (r.pefName.find('/') != std::string::npos) return makeError("--pef-name '" + r.pefName + "' must not contain '/'");
  r.outputFolder = outputFolder.empty() ? (fs::path("out") / r.pefName).string() : outputFolder;
  auto mode = partition::parseCompilerMode(compilerMode);
  if (!mode) return mode.error();
  r.mode = *mode;
  auto opt = parseOptimizer(optimizer);
  if (!opt) return opt.error();
  r.optimizer = *opt;
  auto archSpec = loadScaledArch(*this);
  if (!archSpec) return archSpec.error();
  r.arch = std::move(*archSpec);
  if (!scalingFactors.empty()) {
    auto scales = mapping::parseScalingFactors(scalingFactors);
    if (!scales) return scales.error();
    r.scales = *scales;
  }
  if (!compilerConfigsFile.empty()) {
    auto config = loadCompilerConfig(compilerConfigsFile);
    if (!config) return config.error();
    r.config = std::move(*config);
  }
  if (!macHumanDecision.empty()) {
    auto decisions = mapping::loadDecisions(macHumanDecision);
    if (!decisions) return decisions.error();
    r.decisions = std::move(*decisions);
  }
  if (level == partition::OptLevel::O1) {
    r.o1RuleList = o1RuleList.empty() ? partition::defaultO1RuleList(r.mode) : o1RuleList;
    auto rules = partition::loadFusionRuleList(r.o1RuleList);
    if (!rules) return rules.error();
    r.rules = std::move(*rules);
  }
  return r;
}

Status CompileOptions::validate() const {
  auto resolved = resolve();
  if (!resolved) return resolved.error();
  return {};
}

namespace {

// The shortest text that parses back to the same double.
std::string exactNumber(double x) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(x);
}

void addValue(std::vector<std::string>& out, const char* flag, const std::string& value) {
  out.emplace_back(flag);
  out.push_back(value);
}

}  // namespace

std::vector<std::string> CompileOptions::toArgs() const {
  std::vector<std::string> out = {"dfc", "compile"};
  addValue(out, "--model", model);
  for (const auto& [param, value] : modelParams) {
    out.push_back(modelParamFlag(param));
    out.push_back(std::to_string(value));
  }
  if (!pefName.empty()) addValue(out, "--pef-name", pefName);
  if (!outputFolder.empty()) addValue(out, "--output-folder", outputFolder);
  if (inference) out.emplace_back("--inference");
  if (decode) {
    out.emplace_back("--decode");
    addValue(out, "--kv-cache-len", std::to_string(kvCacheLen));
    if (decodeTokens != 1) addValue(out, "--decode-tokens", std::to_string(decodeTokens));
  }
  addValue(out, "-b", std::to_string(batchSize));
  for (const std::string& spec : inputShapes) addValue(out, "--input-shape", spec);
  out.push_back("-" + std::string(partition::optLevelName(level)));
  if (level == partition::OptLevel::O1 && !o1RuleList.empty()) addValue(out, "--o1-rule-list", o1RuleList);
  if (!compilerMode.empty()) addValue(out, "--compiler-mode", compilerMode);
  if (enableHypersection) out.emplace_back("--enable-hypersection");
  addValue(out, "--arch", arch);
  if (nChips != 1) addValue(out, "--n-chips", std::to_string(nChips));
  if (numTiles != 0) addValue(out, "--num-tiles", std::to_string(numTiles));
  if (!scalingFactors.empty()) {
    out.emplace_back("--resources-scaling-factors");
    out.insert(out.end(), scalingFactors.begin(), scalingFactors.end());
  }
  addValue(out, "--optimizer", optimizer);
  addValue(out, "--lr", exactNumber(learningRate));
  if (gradAccumulationSteps != 1) addValue(out, "--grad-accumulation-steps", std::to_string(gradAccumulationSteps));
  if (numSpatialBatches != 1) addValue(out, "--num-spatial-batches", std::to_string(numSpatialBatches));
  if (!compilerConfigsFile.empty()) addValue(out, "--compiler-configs-file", compilerConfigsFile);
  if (macV2) out.emplace_back("--mac-v2");
  if (allowOveruse) out.emplace_back("--allow-overuse");
  if (!macHumanDecision.empty()) addValue(out, "--mac-human-decision", macHumanDecision);
  if (modelParallel) out.emplace_back("--model-parallel");
  addValue(out, "--seed", std::to_string(seed));
  if (dataParallel) {
    out.emplace_back("--data-parallel");
    addValue(out, "-ws", std::to_string(worldSize));
    if (allreduceBucketKb > 0) addValue(out, "--allreduce-bucket-kb", std::to_string(allreduceBucketKb));
  }
  if (!dbPath.empty()) addValue(out, "--db", dbPath);
  if (debug) out.emplace_back("--debug");
  return out;
}

}  // namespace dfc::driver
