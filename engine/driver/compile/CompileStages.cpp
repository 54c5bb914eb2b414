// The stages of a compile, in the order compileStages() lists them. Each takes
// what earlier stages left in the CompileState and adds its own result.
#include "driver/compile/CompileStages.h"

#include <spdlog/spdlog.h>

#include <filesystem>

#include "autograd/Autograd.h"
#include "driver/compile/CompileReport.h"
#include "driver/compile/HumanDecisions.h"
#include "driver/compile/LegacyMapping.h"
#include "driver/compile/ModelLoader.h"
#include "driver/compile/StoreRecords.h"
#include "driver/report/SpatialReport.h"
#include "ir/KvCache.h"
#include "ir/Printer.h"
#include "ir/TensorBudget.h"
#include "ir/Verifier.h"
#include "mapping/SectionMapper.h"
#include "partition/Decomposer.h"
#include "passes/PassManager.h"
#include "passes/SpatialTiling.h"
#include "pef/PefValidator.h"
#include "runtime/ArenaPlan.h"
#include "support/FileUtil.h"
#include "support/Logging.h"

namespace dfc::driver {
namespace fs = std::filesystem;

void CompileState::dump(const ir::Graph& graph, const std::string& suffix) const {
  if (!opts.debug) return;
  auto path = (fs::path(resolved.outputFolder) / (resolved.pefName + "." + suffix + ".dfir")).string();
  if (auto st = support::writeFileAtomic(path, ir::printGraph(graph)); !st) spdlog::warn("{}", st.error().message());
  else spdlog::debug("IR after {} written to {}", suffix, path);
}

namespace {

// Refuses bad options before any work; creates the output folder and opens the compile log.
Status validateStage(CompileState& s) {
  auto resolved = s.opts.resolve();
  if (!resolved) return resolved.error();
  s.resolved = std::move(*resolved);
  // --model-parallel: a section lives on one chip, so it is mapped and placed on one.
  s.cost.emplace(s.opts.modelParallel ? mapping::oneChipOf(s.resolved.arch) : s.resolved.arch, s.resolved.config.cost);
  std::error_code ec;
  fs::create_directories(s.resolved.outputFolder, ec);
  if (ec) return makeError("--output-folder " + s.resolved.outputFolder + ": " + ec.message());
  s.result.logPath = (fs::path(s.resolved.outputFolder) / (s.resolved.pefName + "_compile.log")).string();
  if (auto st = support::addFileSink(s.result.logPath); !st) return st.error();
  s.logSink = std::shared_ptr<void>(nullptr, [path = s.result.logPath](void*) { support::removeFileSink(path); });
  const CompileOptions& o = s.opts;
  spdlog::info("compiling {} as '{}' ({}, batch {}, -{})", o.model, s.resolved.pefName,
               o.decode ? "decode step, KV cache " + std::to_string(o.kvCacheLen) + " rows"
               : o.inference ? "inference" : "training",
               o.batchSize, partition::optLevelName(o.level));
  if (s.resolved.mode == partition::CompilerMode::Nlp)
    spdlog::info("compiler mode nlp: -o1 rule list '{}', -o3 hypersections on and attention blocks kept whole",
                 o.o1RuleList.empty() ? partition::defaultO1RuleList(s.resolved.mode) : o.o1RuleList);
  return {};
}

Status frontendStage(CompileState& s) {
  auto model = loadModel(s.opts);
  if (!model) return model.error();
  if (auto st = ir::checkCompileBudget(model->graph); !st) return st.error().withContext(s.opts.model);
  s.model = std::move(*model);
  s.dumpGraph = &s.model.graph;
  return {};
}

// --num-spatial-batches N: the forward graph's conv/pool prefix in N row bands (before autograd, so
// training differentiates the tiled form).
Status spatialTilingStage(CompileState& s) {
  if (s.opts.numSpatialBatches == 1) return {};
  frontend::Model& m = s.model;
  const std::string image = m.graph.value(m.image).name, logits = m.graph.value(m.logits).name;
  const ir::Graph untiled = m.graph;
  auto plan = passes::tileSpatialPrefix(m.graph, m.image, s.opts.numSpatialBatches, !s.opts.inference);
  if (!plan) return plan.error().withContext(s.opts.model);
  addChipEstimates(*plan, untiled, m.graph, *s.cost);
  m.image = m.graph.findValue(image);  // the rewrite renumbers values
  m.logits = m.graph.findValue(logits);
  s.pef.meta.spatialTiling = passes::spatialPlanJson(*plan);
  spdlog::info("spatial tiling: {} bands of '{}' rows along H, {:.1f}% more prefix FLOP for the halos", plan->tiles,
               plan->boundary, plan->flopUntiled > 0 ? 100.0 * (plan->flopTiled / plan->flopUntiled - 1.0) : 0.0);
  if (auto st = ir::verifyGraph(s.model.graph); !st) return st.error().withContext(s.opts.model);
  return {};
}

// Training: appends loss, gradients and the optimizer update. Inference: the forward graph as it is.
Status autogradStage(CompileState& s) {
  pef::PefMeta& meta = s.pef.meta;
  const frontend::Model& m = s.model;
  meta.imageInput = m.graph.value(m.image).name;
  meta.task = m.task;
  meta.logitsOutput = m.graph.value(m.logits).name;
  if (s.opts.inference) {  // the graph's inputs and outputs stay as the model has them
    meta.inputNames = m.inputNames;
    meta.outputNames = m.outputNames;
    s.pef.graph = std::move(s.model.graph);
    return {};
  }
  autograd::TrainingConfig config;
  config.optimizer = s.resolved.optimizer;
  config.accumulationSteps = s.opts.gradAccumulationSteps;
  auto training = autograd::buildTrainingGraph(m.graph, m.image, m.logits, config);
  if (!training) return training.error();
  s.pef.graph = std::move(training->graph);
  meta.labelsInput = s.pef.graph.value(training->labels).name;
  meta.lrInput = s.pef.graph.value(training->lr).name;
  meta.lossOutput = s.pef.graph.value(training->loss).name;
  meta.logitsOutput = s.pef.graph.value(training->logits).name;
  if (auto st = ir::checkCompileBudget(s.pef.graph); !st) return st.error().withContext(s.opts.model);
  s.dumpGraph = &s.pef.graph;
  return {};
}

Status passesStage(CompileState& s) {
  const auto& pipeline = s.opts.inference ? passes::kDefaultInferencePipeline : passes::kDefaultTrainingPipeline;
  passes::PassManagerOptions po;
  po.afterPass = [&](const ir::Graph& g, int index, const std::string& pass) {
    s.dump(g, fmt::format("{:02d}-{}", index, pass));
    s.subProgress("passes: " + pass + " done", static_cast<double>(index) / static_cast<double>(pipeline.size()));
  };
  auto pm = passes::PassManager::create(pipeline, std::move(po));
  if (!pm) return pm.error();
  if (auto st = pm->run(s.pef.graph); !st) return st.error().withContext(s.opts.model);
  for (const auto& r : pm->records())
    spdlog::info("pass {}: {:.1f} ms, {} -> {} nodes", r.pass, r.ms, r.nodesBefore, r.nodesAfter);
  return {};
}

Status verifyStage(CompileState& s) {
  if (auto st = ir::verifyGraph(s.pef.graph); !st) return st.error().withContext(s.opts.model);
  return {};
}

// --data-parallel: gradient-reduce nodes between backward and optimizer.
Status dataParallelStage(CompileState& s) {
  if (!s.opts.dataParallel) return {};
  const AllreduceConfig& ar = s.resolved.config.allreduce;
  const int64_t bucketKb = s.opts.allreduceBucketKb > 0 ? s.opts.allreduceBucketKb : ar.bucketKb;
  auto dp = planGradientReduce(s.pef.graph, s.resolved.arch, s.opts.worldSize, bucketKb, ar.bandwidthShare);
  if (!dp) return dp.error();
  s.dataParallel = std::move(*dp);
  if (auto st = ir::verifyGraph(s.pef.graph); !st) return st.error().withContext(s.opts.model);
  s.dumpGraph = &s.pef.graph;
  return {};
}

Status decomposeStage(CompileState& s) {
  partition::DecomposeOptions options;
  options.level = s.opts.level;
  options.o1RuleList = s.resolved.o1RuleList;
  options.rules = &s.resolved.rules;
  options.enableHypersection = s.opts.enableHypersection || s.resolved.mode == partition::CompilerMode::Nlp;
  options.matchStepsPerAnchor = s.resolved.config.fusion.matchStepsPerAnchor;
  options.maxSubgraphOps = s.resolved.config.fusion.maxSubgraphOps;
  auto subgraphs = partition::decompose(s.pef.graph, options);
  if (!subgraphs) return subgraphs.error();
  s.subgraphs = std::move(*subgraphs);
  if (s.opts.dataParallel) splitReduceSubgraphs(s.pef.graph, s.subgraphs);
  return {};
}

// Each subgraph into sections that fit the (scaled) chip, then the schedule.
Status mapStage(CompileState& s) {
  mapping::MappingOptions& options = s.mappingOptions;
  options = s.resolved.scales;
  options.cache = s.opts.reuseHypersections ? &s.mappingCache : nullptr;
  options.reuseCompiled = s.opts.reuseHypersections;
  options.keepAttentionBlocks =
      s.resolved.mode == partition::CompilerMode::Nlp && s.opts.level == partition::OptLevel::O3;
  applyMappingConfig(s.resolved.config, options);
  if (s.opts.macV2) useLegacyMapping(options);
  DFC_TRY(applyHumanDecisions(s));
  auto plan = mapping::mapSections(s.pef.graph, s.subgraphs, *s.cost, s.opts.level, options);
  if (!plan) return plan.error();
  s.result.compileMsSavedEstimate = s.mappingCache.stats().msSavedEstimate;
  s.pef.plan = std::move(*plan);
  if (s.opts.dataParallel) estimateReduceSections(s.pef.plan, s.pef.graph, s.resolved.arch, s.dataParallel);
  return finishHumanDecisions(s);
}

Status writePefStage(CompileState& s) {
  pef::PefMeta& meta = s.pef.meta;
  const CompileOptions& o = s.opts;
  meta.pefName = s.resolved.pefName;
  meta.model = o.model;
  meta.optLevel = std::string(partition::optLevelName(o.level));
  meta.arch = s.resolved.arch.name;
  meta.compilerVersion = DFC_VERSION;
  meta.createdAt = support::isoTimestampUtc();
  meta.args = o.args;
  meta.batchSize = pef::batchSizeOf(s.pef.graph, meta.imageInput, o.batchSize);
  meta.inference = o.inference;
  meta.defaultLr = o.learningRate;
  if (!o.compilerConfigsFile.empty()) meta.compilerConfig = compilerConfigJson(s.resolved.config);
  meta.worldSize = o.dataParallel ? o.worldSize : 0;
  if (o.decode) {
    meta.kvCacheLen = o.kvCacheLen;
    meta.positionInput = "position";  // frontend/TransformerBlocks.h: tokenInputs
  }
  double elapsedMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s.start).count();
  s.pef.reportJson = buildCompileReportJson(s.pef.graph, s.pef.plan, s.resolved.arch, elapsedMs, &s.link.sections,
                                         o.dataParallel ? &s.dataParallel : nullptr);
  s.result.pefPath =
      fs::absolute(fs::path(s.resolved.outputFolder) / (s.resolved.pefName + ".pef")).lexically_normal().string();
  DFC_TRY(pef::writePef(s.pef, s.result.pefPath));
  s.pefWritten = true;
  return {};
}

// The result's summary figures, and the compile in the run store.
Status recordStage(CompileState& s) {
  CompileResult& r = s.result;
  const partition::Plan& plan = s.pef.plan;
  r.numNodes = static_cast<int>(s.pef.graph.nodes.size());
  r.numSections = static_cast<int>(plan.sections.size());
  for (const auto& section : plan.sections) ++r.sectionsByRole[ir::roleIndex(section.type)];
  r.hypersectionsUnique = static_cast<int>(plan.hypersections.size());
  r.hypersectionInstances = static_cast<int>(plan.sections.size());
  for (int id : plan.schedule) r.estLatencyUs += plan.sections[static_cast<size_t>(id)].estimate.latencyUs;
  for (ir::ValueId p : s.pef.graph.params()) r.numParams += s.pef.graph.value(p).type.numElements();
  if (auto host = runtime::estimateHostMemory(s.pef.graph, s.pef.plan)) {
    r.hostArenaBytes = host->arenaBytes;
    r.hostPersistentBytes = host->persistentBytes;
  }
  r.kvCacheLen = s.pef.meta.kvCacheLen;
  r.kvCacheBytes = ir::kvCacheBytes(s.pef.graph);
  r.compileMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s.start).count();
  if (s.opts.dbPath == "-") return {};
  auto id = recordCompile(s.opts.dbPath, s.pef, r);
  if (!id) spdlog::warn("run store: {}", id.error().message());  // the PEF is written; a store failure is not fatal
  else r.compileId = *id;
  return {};
}

// Weights: roughly the share of a compile's time each stage takes (bench_hypersections:
// placement dominates gpt2; writing the PEF is a good part of small models).
constexpr Stage<CompileState> kStages[] = {
    {"validate", 1, validateStage}, {"frontend", 3, frontendStage}, {"spatial-tiling", 1, spatialTilingStage},
    {"autograd", 3, autogradStage},
    {"passes", 8, passesStage},     {"verify", 1, verifyStage},     {"data-parallel", 1, dataParallelStage},
    {"decompose", 2, decomposeStage},
    {"map", 8, mapStage},           {"lower", 4, lowerStage},       {"place", 24, placeStage},
    {"route", 28, routeStage},      {"bitfiles", 4, bitfilesStage}, {"write-pef", 10, writePefStage},
    {"record", 4, recordStage},
};

}  // namespace

std::span<const Stage<CompileState>> compileStages() { return kStages; }

}  // namespace dfc::driver
