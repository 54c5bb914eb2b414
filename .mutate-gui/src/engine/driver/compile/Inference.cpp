#include "driver/compile/Inference.h"

#include "arch/CostModel.h"
#include "ir/DfirFile.h"
#include "ir/Verifier.h"
#include "mapping/SectionMapper.h"
#include "onnx/OnnxImporter.h"
#include "partition/Decomposer.h"
#include "passes/PassManager.h"
#include "pef/PefValidator.h"
#include "runtime/Executor.h"

namespace dfc::driver {

Expected<pef::Pef> compileGraphForInference(ir::Graph graph, const InferenceCompileOptions& options) {
  pef::Pef pef;
  pef.graph = std::move(graph);
  pef.meta.inference = true;
  pef.meta.optLevel = std::string(partition::optLevelName(options.level));
  if (!pef.graph.inputs.empty()) pef.meta.imageInput = pef.graph.value(pef.graph.inputs.front()).name;
  if (!pef.graph.outputs.empty()) pef.meta.logitsOutput = pef.graph.value(pef.graph.outputs.front()).name;
  pef.meta.batchSize = pef::batchSizeOf(pef.graph, pef.meta.imageInput, options.batchSize);
  auto pm = passes::PassManager::create(passes::kDefaultInferencePipeline);
  if (!pm) return pm.error();
  DFC_TRY(pm->run(pef.graph));
  DFC_TRY(ir::verifyGraph(pef.graph));
  auto archSpec = arch::loadArch(options.arch);
  if (!archSpec) return archSpec.error();
  pef.meta.arch = archSpec->name;
  arch::CostModel cost(*archSpec);
  partition::DecomposeOptions decomposeOptions;
  decomposeOptions.level = options.level;
  auto subgraphs = partition::decompose(pef.graph, decomposeOptions);
  if (!subgraphs) return subgraphs.error();
  auto plan = mapping::mapSections(pef.graph, *subgraphs, cost, options.level, {});
  if (!plan) return plan.error();
  pef.plan = std::move(*plan);
  return pef;
}

Expected<pef::Pef> compileForInference(const std::string& modelPath, const InferenceCompileOptions& options) {
  ir::Graph graph;
  if (modelPath.ends_with(".onnx")) {
    onnx::ImportOptions io;
    io.batchSize = options.batchSize;
    io.operandValues = options.operandValues;
    io.inputShapes = options.inputShapes;
    io.ignoreUnknownInputShapes = options.ignoreUnknownInputShapes;
    io.listInputs = options.listInputs;
    auto g = onnx::importOnnxFile(modelPath, io);
    if (!g) return g.error();
    graph = std::move(*g);
  } else if (modelPath.ends_with(".dfir")) {
    auto g = ir::loadDfirFile(modelPath);
    if (!g) return g.error();
    graph = std::move(*g);
  } else {
    return makeError(modelPath + ": not a .onnx or .dfir model");
  }
  auto pef = compileGraphForInference(std::move(graph), options);
  if (!pef) return pef.error();
  pef->meta.model = modelPath;
  return pef;
}

Expected<std::vector<ir::Tensor>> runInference(const pef::Pef& pef, const std::vector<ir::Tensor>& inputs) {
  const ir::Graph& g = pef.graph;
  if (inputs.size() != g.inputs.size())
    return makeError("the model takes " + std::to_string(g.inputs.size()) + " inputs, " + std::to_string(inputs.size()) +
                     " given");
  auto exec = runtime::Executor::create(g, pef.plan);
  if (!exec) return exec.error();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::Value& v = g.value(g.inputs[i]);
    if (inputs[i].type() != v.type)
      return makeError("input '" + v.name + "' needs " + v.type.toString() + ", given " + inputs[i].type().toString());
    DFC_TRY(exec->setInput(g.inputs[i], inputs[i]));
  }
  DFC_TRY(exec->step(true));
  std::vector<ir::Tensor> out;
  for (ir::ValueId o : g.outputs) out.push_back(exec->tensor(o).clone());
  return out;
}

}  // namespace dfc::driver
