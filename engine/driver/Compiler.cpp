#include "driver/Compiler.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <random>

#include "arch/CostModel.h"
#include "autograd/Autograd.h"
#include "driver/CompileReport.h"
#include "driver/StoreRecords.h"
#include "frontend/ModelZoo.h"
#include "ir/DfirFile.h"
#include "ir/TensorBudget.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "kernelc/Linker.h"
#include "mapping/SectionMapper.h"
#include "onnx/OnnxImporter.h"
#include "partition/CompilerMode.h"
#include "partition/Decomposer.h"
#include "passes/PassManager.h"
#include "pef/Pef.h"
#include "pef/PefValidator.h"
#include "profile/RunStore.h"
#include "support/FileUtil.h"
#include "support/Logging.h"

namespace dfc::driver {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

Expected<partition::OptLevel> parseOptLevel(const std::string& text) {
  std::string t = text;
  while (!t.empty() && t.front() == '-') t.erase(t.begin());
  if (!t.empty() && t.front() == 'o') t.erase(t.begin());
  if (t == "0") return partition::OptLevel::O0;
  if (t == "1") return partition::OptLevel::O1;
  if (t == "3") return partition::OptLevel::O3;
  return makeError("unknown optimization level '" + text + "' (use -o0, -o1 or -o3)");
}

namespace {

// A .dfir model: the first graph input is the image batch, the first output the logits.
// Params without data get PyTorch-style uniform(-1/sqrt(fan_in), +) weights from the seed.
Expected<frontend::Model> loadDfirModel(const std::string& path, uint64_t seed) {
  auto graph = ir::loadDfirFile(path);  // verified against its own lines before any pass
  if (!graph) return graph.error();
  frontend::Model m;
  m.graph = std::move(*graph);
  if (m.graph.inputs.empty() || m.graph.outputs.empty())
    return makeError(path + ": a model needs an input (the batch) and an output (the logits)");
  m.image = m.graph.inputs.front();
  m.logits = m.graph.outputs.front();
  const auto& logitsType = m.graph.value(m.logits).type;
  if (logitsType.rank() != 2) return makeError(path + ": output '" + m.graph.value(m.logits).name + "' must be logits [N, C]");
  m.numClasses = logitsType.shape[1];
  std::mt19937_64 rng(seed);
  for (ir::ValueId p : m.graph.params()) {
    if (m.graph.initializers.count(p)) continue;
    const ir::TensorType& type = m.graph.value(p).type;
    if (type.dtype != ir::DType::F32) return makeError(path + ": param '" + m.graph.value(p).name + "' is not f32 and has no data");
    int64_t fanIn = type.rank() > 1 ? type.numElements() / type.shape[0] : type.numElements();
    double bound = 1.0 / std::sqrt(static_cast<double>(std::max<int64_t>(fanIn, 1)));
    m.graph.initializers[p] = ir::Tensor::deferred(type, {ir::InitRecipe::Kind::Uniform, bound, rng() >> 1});
  }
  return m;
}

// An ONNX model: the first graph input is the batch, the first output the logits.
Expected<frontend::Model> loadOnnxModel(const std::string& path, int64_t batchSize, bool inference) {
  onnx::ImportOptions io;
  io.batchSize = batchSize;
  auto graph = onnx::importOnnxFile(path, io);
  if (!graph) return graph.error();
  frontend::Model m;
  m.graph = std::move(*graph);
  if (m.graph.inputs.empty()) return makeError(path + ": the model has no runtime input (the batch)");
  m.image = m.graph.inputs.front();
  m.logits = m.graph.outputs.front();
  const auto& logitsType = m.graph.value(m.logits).type;
  if (logitsType.rank() == 2) m.numClasses = logitsType.shape[1];
  else if (!inference)
    return makeError(path + ": output '" + m.graph.value(m.logits).name + "' must be logits [N, C] to train (or compile with --inference)");
  return m;
}

Expected<frontend::Model> loadModel(const CompileOptions& o) {
  if (o.model.ends_with(".onnx")) return loadOnnxModel(o.model, o.batchSize, o.inference);
  if (o.model.ends_with(".dfir")) return loadDfirModel(o.model, o.seed);
  frontend::ZooOptions zoo;
  zoo.batchSize = o.batchSize;
  zoo.seed = o.seed;
  zoo.params = o.modelParams;
  return frontend::buildZooModel(o.model, zoo);
}

std::string defaultPefName(const std::string& model) { return fs::path(model).stem().string(); }

}  // namespace

Expected<CompileResult> compile(const CompileOptions& opts, const ProgressFn& progress, const std::atomic<bool>* cancel) {
  auto start = Clock::now();
  CompileResult result;
  if (opts.model.empty()) return makeError("--model is required (a zoo name: logreg, mlp, lenet; or a .dfir file)");
  if (opts.batchSize < 1) return makeError("-b/--batch-size must be at least 1");
  auto mode = partition::parseCompilerMode(opts.compilerMode);
  if (!mode) return mode.error();
  std::string pefName = opts.pefName.empty() ? defaultPefName(opts.model) : opts.pefName;
  if (pefName.find('/') != std::string::npos) return makeError("--pef-name '" + pefName + "' must not contain '/'");
  fs::path outDir = opts.outputFolder.empty() ? fs::path("out") / pefName : fs::path(opts.outputFolder);
  std::error_code ec;
  fs::create_directories(outDir, ec);
  if (ec) return makeError("--output-folder " + outDir.string() + ": " + ec.message());
  result.logPath = (outDir / (pefName + "_compile.log")).string();
  support::addFileSink(result.logPath);
  struct SinkGuard {
    std::string path;
    ~SinkGuard() { support::removeFileSink(path); }
  } sinkGuard{result.logPath};

  constexpr int kStages = 8;
  int stageIndex = 0;
  auto stageStart = Clock::now();
  auto stage = [&](const std::string& name) -> Status {
    auto now = Clock::now();
    if (stageIndex > 0) {
      result.stageMs.back().second = std::chrono::duration<double, std::milli>(now - stageStart).count();
      spdlog::info("    {} took {:.1f} ms", result.stageMs.back().first, result.stageMs.back().second);
    }
    stageStart = now;
    if (cancel && cancel->load()) return makeError("compile cancelled");
    result.stageMs.emplace_back(name, 0.0);
    spdlog::info("[{}/{}] {}", stageIndex + 1, kStages, name);
    if (progress) progress({name, stageIndex, kStages});
    ++stageIndex;
    return {};
  };
  auto dump = [&](const ir::Graph& g, const std::string& suffix) {
    if (!opts.debug) return;
    auto path = (outDir / (pefName + "." + suffix + ".dfir")).string();
    if (auto st = support::writeFileAtomic(path, ir::printGraph(g)); !st) spdlog::warn("{}", st.error().message());
    else spdlog::debug("IR after {} written to {}", suffix, path);
  };

  spdlog::info("compiling {} as '{}' ({}, batch {}, -{})", opts.model, pefName, opts.inference ? "inference" : "training",
               opts.batchSize, partition::optLevelName(opts.level));
  if (*mode == partition::CompilerMode::Nlp)
    spdlog::info("compiler mode nlp: -o1 rule list '{}', -o3 hypersections on and attention blocks kept whole",
                 opts.o1RuleList.empty() ? partition::defaultO1RuleList(*mode) : opts.o1RuleList);
  DFC_TRY(stage("frontend"));
  auto model = loadModel(opts);
  if (!model) return model.error();
  if (auto st = ir::checkGraphBudget(model->graph); !st) return st.error().withContext(opts.model);
  dump(model->graph, "frontend");

  DFC_TRY(stage("autograd"));
  pef::Pef pef;
  pef.meta.imageInput = model->graph.value(model->image).name;
  pef.meta.task = model->task;
  pef.meta.logitsOutput = model->graph.value(model->logits).name;
  if (opts.inference) {
    pef.graph = std::move(model->graph);
  } else {
    autograd::TrainingConfig config;
    if (opts.optimizer == "sgd") config.optimizer = autograd::Optimizer::Sgd;
    else if (opts.optimizer == "momentum") config.optimizer = autograd::Optimizer::Momentum;
    else if (opts.optimizer == "adam") config.optimizer = autograd::Optimizer::Adam;
    else return makeError("--optimizer " + opts.optimizer + ": unknown (use sgd, momentum or adam)");
    auto training = autograd::buildTrainingGraph(model->graph, model->image, model->logits, config);
    if (!training) return training.error();
    pef.graph = std::move(training->graph);
    pef.meta.labelsInput = pef.graph.value(training->labels).name;
    pef.meta.lrInput = pef.graph.value(training->lr).name;
    pef.meta.lossOutput = pef.graph.value(training->loss).name;
    pef.meta.logitsOutput = pef.graph.value(training->logits).name;
    if (auto st = ir::checkGraphBudget(pef.graph); !st) return st.error().withContext(opts.model);
    dump(pef.graph, "autograd");
  }

  DFC_TRY(stage("passes"));
  {
    passes::PassManagerOptions po;
    po.afterPass = [&](const ir::Graph& g, int index, const std::string& pass) {
      dump(g, fmt::format("{:02d}-{}", index, pass));
      // The progress bar follows the passes inside the "passes" stage.
      if (progress) progress({"passes: " + pass + " done", stageIndex - 1, kStages});
    };
    auto pm = passes::PassManager::create(
        opts.inference ? passes::kDefaultInferencePipeline : passes::kDefaultTrainingPipeline, std::move(po));
    if (!pm) return pm.error();
    if (auto st = pm->run(pef.graph); !st) return st.error().withContext(opts.model);
    for (const auto& r : pm->records())
      spdlog::info("pass {}: {:.1f} ms, {} -> {} nodes", r.pass, r.ms, r.nodesBefore, r.nodesAfter);
  }

  DFC_TRY(stage("verify"));
  if (auto st = ir::verifyGraph(pef.graph); !st) return st.error().withContext(opts.model);

  DFC_TRY(stage("decompose"));
  auto archSpec = arch::loadArch(opts.arch);
  if (!archSpec) return archSpec.error();
  auto scaledArch = arch::scaleArch(*archSpec, opts.nChips, opts.numTiles);
  if (!scaledArch) return scaledArch.error();
  *archSpec = std::move(*scaledArch);
  arch::CostModel cost(*archSpec);
  partition::DecomposeOptions decomposeOptions;
  decomposeOptions.level = opts.level;
  decomposeOptions.o1RuleList = opts.o1RuleList.empty() ? partition::defaultO1RuleList(*mode) : opts.o1RuleList;
  decomposeOptions.enableHypersection = opts.enableHypersection || *mode == partition::CompilerMode::Nlp;
  auto subgraphs = partition::decompose(pef.graph, decomposeOptions);
  if (!subgraphs) return subgraphs.error();
  partition::HypersectionCache<partition::MappedSubgraph> mappingCache;  // compile once per hypersection, reuse
  mapping::MappingOptions mappingOptions;
  mappingOptions.cache = opts.reuseHypersections ? &mappingCache : nullptr;
  mappingOptions.reuseCompiled = opts.reuseHypersections;
  mappingOptions.keepAttentionBlocks = *mode == partition::CompilerMode::Nlp && opts.level == partition::OptLevel::O3;
  if (!opts.scalingFactors.empty()) {
    auto scales = mapping::parseScalingFactors(opts.scalingFactors);
    if (!scales) return scales.error();
    mappingOptions.forwardScale = scales->forwardScale;
    mappingOptions.backwardScale = scales->backwardScale;
    mappingOptions.gradNormScale = scales->gradNormScale;
    mappingOptions.optimizerScale = scales->optimizerScale;
  }
  auto plan = mapping::mapSections(pef.graph, *subgraphs, cost, opts.level, mappingOptions);
  if (!plan) return plan.error();
  result.compileMsSavedEstimate = mappingCache.stats().msSavedEstimate;
  pef.plan = std::move(*plan);

  DFC_TRY(stage("place"));  // lower, place and link one bitfile per hypersection
  auto link = kernelc::linkPlan(pef.graph, pef.plan, cost, mappingOptions);
  if (!link) return link.error();
  pef.bitfiles = link->bitfiles;
  result.placedHops = link->placedHops;
  result.rowMajorHops = link->naiveHops;
  result.routedHops = link->routedHops;
  result.overusedLinks = link->overusedLinks;
  result.numBitfiles = static_cast<int>(link->bitfiles.size());
  result.compileMsSavedEstimate += link->placeMsSavedEstimate;  // instances reuse their hypersection's bitfile
  spdlog::info("placed {} bitfiles in {:.1f} ms: {} hops ({} row-major); routed {} hops in {:.1f} ms ({} graphs, "
               "<= {} iterations), max link use {}/{}, {} overused links ({} into units fed by too many nets)",
               result.numBitfiles, link->placeMs, result.placedHops, result.rowMajorHops, link->routedHops, link->routeMs,
               link->placedGraphs, link->maxRouteIterations, link->maxLinkUse, link->linkCapacity, link->overusedLinks,
               link->forcedLinks);

  DFC_TRY(stage("write-pef"));
  pef.meta.pefName = pefName;
  pef.meta.model = opts.model;
  pef.meta.optLevel = std::string(partition::optLevelName(opts.level));
  pef.meta.arch = archSpec->name;
  pef.meta.compilerVersion = DFC_VERSION;
  pef.meta.createdAt = support::isoTimestampUtc();
  pef.meta.args = opts.args;
  pef.meta.batchSize = pef::batchSizeOf(pef.graph, pef.meta.imageInput, opts.batchSize);
  pef.meta.inference = opts.inference;
  pef.meta.defaultLr = opts.learningRate;
  double elapsedMs = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  pef.reportJson = buildCompileReportJson(pef.graph, pef.plan, *archSpec, elapsedMs, &link->sections);
  result.pefPath = fs::absolute(outDir / (pefName + ".pef")).lexically_normal().string();
  if (auto st = pef::writePef(pef, result.pefPath); !st) return st.error();

  DFC_TRY(stage("record"));
  result.numNodes = static_cast<int>(pef.graph.nodes.size());
  result.numSections = static_cast<int>(pef.plan.sections.size());
  for (const auto& s : pef.plan.sections) {
    result.numForward += s.type == ir::NodeRole::Forward;
    result.numBackward += s.type == ir::NodeRole::Backward;
    result.numOptimizer += s.type == ir::NodeRole::Optimizer;
  }
  result.hypersectionsUnique = static_cast<int>(pef.plan.hypersections.size());
  result.hypersectionInstances = static_cast<int>(pef.plan.sections.size());
  for (int id : pef.plan.schedule) result.estLatencyUs += pef.plan.sections[static_cast<size_t>(id)].estimate.latencyUs;
  for (ir::ValueId p : pef.graph.params()) result.numParams += pef.graph.value(p).type.numElements();
  result.stageMs.back().second = std::chrono::duration<double, std::milli>(Clock::now() - stageStart).count();
  result.compileMs = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  if (opts.dbPath != "-") {
    auto id = recordCompile(opts.dbPath, pef, result);
    if (!id) spdlog::warn("run store: {}", id.error().message());  // the PEF is written; a store failure is not fatal
    else result.compileId = *id;
  }
  spdlog::info("compiled {} nodes into {} sections in {:.1f} ms: {}", result.numNodes, result.numSections,
               result.compileMs, result.pefPath);
  return result;
}

}  // namespace dfc::driver
