#include "autograd/Autograd.h"

#include "autograd/GradientEmitter.h"
#include "autograd/GradientRules.h"
#include "ir/ShapeInference.h"

namespace dfc::autograd {

using ir::NodeId;
using ir::ValueId;

namespace {

// Optimizer state starts at zero: a recipe, so it costs nothing until the runtime loads it.
ir::Tensor zerosLike(const ir::TensorType& type) { return ir::Tensor::deferred(type, {}); }

bool validValue(const ir::Graph& g, ValueId v) { return v >= 0 && static_cast<size_t>(v) < g.values.size(); }

// The layer scope a parameter belongs to: that of its first reader.
std::string scopeOfParam(const ir::Graph& g, const std::vector<std::vector<NodeId>>& users, ValueId p) {
  const auto& readers = users[static_cast<size_t>(p)];
  return readers.empty() ? std::string() : g.node(readers.front()).scope;
}

// Only nodes on a path wrt -> target are differentiated: they depend on some
// wrt value and feed the target. Everything else (labels, the image path) is skipped.
struct PathMasks {
  std::vector<char> dependsOnWrt, feedsTarget;  // by value id
};

PathMasks pathsFromTo(const ir::Graph& graph, const std::vector<ValueId>& wrt, ValueId target) {
  PathMasks m{std::vector<char>(graph.values.size(), 0), std::vector<char>(graph.values.size(), 0)};
  for (ValueId w : wrt) m.dependsOnWrt[static_cast<size_t>(w)] = 1;
  for (const ir::Node& n : graph.nodes) {
    bool any = false;
    for (ValueId in : n.inputs) any = any || m.dependsOnWrt[static_cast<size_t>(in)];
    if (any)
      for (ValueId out : n.outputs) m.dependsOnWrt[static_cast<size_t>(out)] = 1;
  }
  m.feedsTarget[static_cast<size_t>(target)] = 1;
  for (size_t i = graph.nodes.size(); i-- > 0;) {
    const ir::Node& n = graph.nodes[i];
    bool any = false;
    for (ValueId out : n.outputs) any = any || m.feedsTarget[static_cast<size_t>(out)];
    if (any)
      for (ValueId in : n.inputs) m.feedsTarget[static_cast<size_t>(in)] = 1;
  }
  return m;
}

}  // namespace

Expected<std::vector<ValueId>> appendGradients(ir::Graph& graph, ValueId target, ValueId seed,
                                               const std::vector<ValueId>& wrt) {
  if (!validValue(graph, target) || !validValue(graph, seed)) return makeError("autograd: unknown target or seed value");
  if (graph.value(seed).type != graph.value(target).type)
    return makeError("autograd: seed " + graph.value(seed).type.toString() + " does not match target '" +
                     graph.value(target).name + "' " + graph.value(target).type.toString());
  for (ValueId w : wrt)
    if (!validValue(graph, w)) return makeError("autograd: unknown value to differentiate with respect to");

  const size_t numValues = graph.values.size(), numNodes = graph.nodes.size();
  const auto [dependsOnWrt, feedsTarget] = pathsFromTo(graph, wrt, target);

  GradientEmitter emitter(graph);
  std::vector<ValueId> grad(numValues, ir::kNoValue);
  grad[static_cast<size_t>(target)] = seed;
  // Fan-out: a value read by several nodes gets the sum of their contributions.
  auto accumulate = [&](const ir::Node& from, ValueId v, ValueId g) -> Status {
    ValueId& slot = grad[static_cast<size_t>(v)];
    if (slot == ir::kNoValue) {
      slot = g;
      return {};
    }
    emitter.setContext(from.scope, ir::NodeRole::Backward, graph.value(v).name + ".grad_acc");
    auto sum = emitter.emit(ir::OpKind::Add, {slot, g}, {}, "add");
    if (!sum) return sum.error();
    slot = *sum;
    return {};
  };

  for (size_t i = numNodes; i-- > 0;) {
    const ir::Node node = graph.nodes[i];  // a copy: emitting grows graph.nodes
    bool onPath = false, needsAny = false;
    for (ValueId out : node.outputs) onPath = onPath || feedsTarget[static_cast<size_t>(out)];
    std::vector<bool> needed;
    for (ValueId in : node.inputs) {
      bool need = dependsOnWrt[static_cast<size_t>(in)] && graph.value(in).type.dtype == ir::DType::F32;
      needed.push_back(need);
      needsAny = needsAny || need;
    }
    if (!onPath || !needsAny) continue;
    // batch_norm's outputs 1 and 2 are running statistics (state): only output 0 may carry a gradient.
    const bool stateOutputsOnly = node.op == ir::OpKind::BatchNorm && feedsTarget[static_cast<size_t>(node.outputs[0])];
    if (node.outputs.size() != 1 && !stateOutputsOnly)
      return makeError("autograd: " + std::string(ir::opName(node.op)) + " '" + node.name +
                       "' has no gradient rule (more than one output)");
    ValueId dy = grad[static_cast<size_t>(node.outputs[0])];
    if (dy == ir::kNoValue) continue;  // its output reaches the target only through non-differentiable inputs
    emitter.setContext(node.scope, ir::NodeRole::Backward, node.name);
    auto inputGrads = applyGradientRule(emitter, node, dy, needed);
    if (!inputGrads) return inputGrads.error();
    for (size_t k = 0; k < node.inputs.size(); ++k)
      if (needed[k] && (*inputGrads)[k] != ir::kNoValue) DFC_TRY(accumulate(node, node.inputs[k], (*inputGrads)[k]));
  }

  std::vector<ValueId> result;
  for (ValueId w : wrt) {
    ValueId g = grad[static_cast<size_t>(w)];
    if (g == ir::kNoValue) {  // the target does not depend on w: its gradient is zero
      emitter.setContext({}, ir::NodeRole::Backward, graph.value(w).name);
      g = emitter.filled("grad_zero", graph.value(w).type.shape, 0.0f);
    }
    result.push_back(g);
  }
  return result;
}

namespace {

// batch_norm with running statistics normalizes by the batch in training and
// moves its running statistics, written back after each step (PyTorch's train mode).
void trainBatchNorms(ir::Graph& g) {
  for (ir::Node& n : g.nodes) {
    if (n.op != ir::OpKind::BatchNorm || n.inputs.size() != 5 || n.outputs.size() != 3) continue;
    n.attrs["training"] = int64_t{1};
    g.updates.push_back({n.inputs[3], n.outputs[1]});
    g.updates.push_back({n.inputs[4], n.outputs[2]});
  }
}

// Gradient accumulation: sum += grad (Accumulate role, the sum written back each
// step), and the mean of the sums for the optimizer. All sums come first, so
// they form one run of Accumulate nodes (one section) before the optimizer.
Expected<std::vector<ValueId>> accumulateGradients(ir::Graph& g, GradientEmitter& emitter,
                                                   const std::vector<std::vector<NodeId>>& users,
                                                   const std::vector<ValueId>& params, std::vector<ValueId> grads,
                                                   int steps) {
  std::vector<ValueId> sums;
  for (size_t i = 0; i < params.size(); ++i) {
    const std::string pname = g.value(params[i]).name;
    emitter.setContext(scopeOfParam(g, users, params[i]), ir::NodeRole::Accumulate, pname);
    ValueId sum = g.addConst(emitter.uniqueValueName(pname + ".grad_sum"), zerosLike(g.value(params[i]).type));
    auto next = emitter.emit(ir::OpKind::Add, {sum, grads[i]}, {{"accumulation_steps", int64_t{steps}}},
                             "grad_accumulate");
    if (!next) return next.error();
    g.updates.push_back({sum, *next});
    sums.push_back(*next);
  }
  for (size_t i = 0; i < params.size(); ++i) {
    emitter.setContext(scopeOfParam(g, users, params[i]), ir::NodeRole::Optimizer, g.value(params[i]).name);
    auto mean = emitter.emit(ir::OpKind::Scale, {sums[i]}, {{"alpha", 1.0 / steps}}, "grad_mean");
    if (!mean) return mean.error();
    grads[i] = *mean;
  }
  return grads;
}

}  // namespace

namespace {

Status checkForwardGraph(const ir::Graph& forward, ValueId image, ValueId logits) {
  if (!validValue(forward, image) || !validValue(forward, logits))
    return makeError("training graph: unknown image or logits value");
  if (logits == image) return makeError("training graph: the logits must be computed from the image, not be the image");
  if (forward.inputs != std::vector<ValueId>{image})
    return makeError("training graph: the forward graph '" + forward.name + "' must have the image as its only input");
  const ir::TensorType& logitsType = forward.value(logits).type;
  const int rank = static_cast<int>(logitsType.rank());
  if ((rank != 2 && rank != 3 && rank != 4) || logitsType.dtype != ir::DType::F32)
    return makeError("training graph: logits '" + forward.value(logits).name +
                     "' must be f32 [N, C], [B, T, V] or [N, C, H, W], is " + logitsType.toString());
  for (const char* reserved : {"labels", "lr", "loss"})
    if (forward.findValue(reserved) != ir::kNoValue)
      return makeError(std::string("training graph: the forward graph already has a value named '") + reserved + "'");
  return {};
}

// Labels as the logits ask: [N] classes; [B, T] tokens of [B, T, V] (a
// language model); [N, H, W] pixels of [N, C, H, W] (segmentation).
ir::Shape labelShapeFor(const ir::TensorType& logitsType) {
  ir::Shape labelShape{logitsType.shape[0]};
  if (logitsType.rank() == 3) labelShape.push_back(logitsType.shape[1]);
  if (logitsType.rank() == 4) labelShape.insert(labelShape.end(), logitsType.shape.begin() + 2, logitsType.shape.end());
  return labelShape;
}

// Language models: the loss is the mean over all B*T positions, on [B*T, V] / [B*T] views;
// segmentation: over all N*H*W pixels, the class axis moved last first.
// Returns the (logits, labels) the loss reads.
std::pair<ValueId, ValueId> flattenForLoss(ir::Graph& g, ValueId logits, ValueId labels) {
  const ir::TensorType logitsType = g.value(logits).type;
  const bool segmentation = logitsType.rank() == 4;
  if (logitsType.rank() == 2) return {logits, labels};
  ValueId rowsLast = logits;
  if (segmentation) {
    const ir::Shape& s = logitsType.shape;
    rowsLast = g.addValue("loss/logits_nhwc", ir::TensorType{ir::DType::F32, {s[0], s[2], s[3], s[1]}},
                          ir::ValueKind::Intermediate);
    g.addNode(ir::OpKind::Transpose, "loss/classes_last", {logits}, {rowsLast},
              {{"perm", std::vector<int64_t>{0, 2, 3, 1}}}, "loss", ir::NodeRole::Forward);
  }
  const int64_t vocab = segmentation ? logitsType.shape[1] : logitsType.shape[2];
  const int64_t rows = logitsType.numElements() / vocab;
  ValueId lossLogits =
      g.addValue("loss/logits_2d", ir::TensorType{ir::DType::F32, {rows, vocab}}, ir::ValueKind::Intermediate);
  g.addNode(ir::OpKind::Reshape, "loss/reshape_logits", {rowsLast}, {lossLogits},
            {{"shape", std::vector<int64_t>{rows, vocab}}}, "loss", ir::NodeRole::Forward);
  ValueId lossLabels =
      g.addValue("loss/labels_1d", ir::TensorType{ir::DType::I64, {rows}}, ir::ValueKind::Intermediate);
  g.addNode(ir::OpKind::Reshape, "loss/reshape_labels", {labels}, {lossLabels}, {{"shape", std::vector<int64_t>{rows}}},
            "loss", ir::NodeRole::Forward);
  return {lossLogits, lossLabels};
}

Expected<ValueId> appendLoss(ir::Graph& g, ValueId logits, ValueId labels) {
  const auto [lossLogits, lossLabels] = flattenForLoss(g, logits, labels);
  ir::Node lossNode;
  lossNode.op = ir::OpKind::SoftmaxCrossEntropy;
  lossNode.name = "loss/softmax_cross_entropy";
  lossNode.inputs = {lossLogits, lossLabels};
  auto lossType = ir::inferOutputTypes(g, lossNode);
  if (!lossType) return lossType.error();
  ValueId loss = g.addValue("loss", lossType->front(), ir::ValueKind::Intermediate);
  g.addNode(lossNode.op, lossNode.name, lossNode.inputs, {loss}, {}, "loss", ir::NodeRole::Forward);
  return loss;
}

// Adam's step counter: a state value counting optimizer steps, read by every update.
Expected<ValueId> appendAdamStep(ir::Graph& g, GradientEmitter& emitter) {
  emitter.setContext("optimizer", ir::NodeRole::Optimizer, "adam");
  ValueId counter = g.addConst(emitter.uniqueValueName("adam.step"), ir::Tensor::scalarF32(0.0f));
  auto next =
      emitter.emit(ir::OpKind::Add, {counter, emitter.constant("one", ir::Tensor::scalarF32(1.0f))}, {}, "step_next");
  if (!next) return next.error();
  g.updates.push_back({counter, *next});
  return *next;
}

// One parameter's optimizer update, its state (zeros) and their write-backs.
Status appendParamUpdate(ir::Graph& g, GradientEmitter& emitter, const TrainingConfig& config, ValueId p, ValueId grad,
                         ValueId lr, ValueId step) {
  const std::string pname = g.value(p).name;
  if (config.optimizer == Optimizer::Adam) {
    ValueId m = g.addConst(emitter.uniqueValueName(pname + ".adam_m"), zerosLike(g.value(p).type));
    ValueId v = g.addConst(emitter.uniqueValueName(pname + ".adam_v"), zerosLike(g.value(p).type));
    auto outs = emitter.emitMulti(ir::OpKind::AdamUpdate, {p, grad, m, v, lr, step},
                                  {{"beta1", config.beta1},
                                   {"beta2", config.beta2},
                                   {"epsilon", config.epsilon},
                                   {"weight_decay", config.weightDecay}},
                                  "adam_update");
    if (!outs) return outs.error();
    g.updates.push_back({p, (*outs)[0]});
    g.updates.push_back({m, (*outs)[1]});
    g.updates.push_back({v, (*outs)[2]});
  } else if (config.optimizer == Optimizer::Sgd) {
    auto np = emitter.emit(ir::OpKind::SgdUpdate, {p, grad, lr}, {{"weight_decay", config.weightDecay}}, "sgd_update");
    if (!np) return np.error();
    g.updates.push_back({p, *np});
  } else {
    ValueId velocity = g.addConst(emitter.uniqueValueName(pname + ".velocity"), zerosLike(g.value(p).type));
    auto outs =
        emitter.emitMulti(ir::OpKind::MomentumUpdate, {p, grad, velocity, lr},
                          {{"momentum", config.momentum}, {"weight_decay", config.weightDecay}}, "momentum_update");
    if (!outs) return outs.error();
    g.updates.push_back({p, (*outs)[0]});
    g.updates.push_back({velocity, (*outs)[1]});
  }
  return {};
}

}  // namespace

Expected<TrainingGraph> buildTrainingGraph(const ir::Graph& forward, ValueId image, ValueId logits,
                                           const TrainingConfig& config) {
  DFC_TRY(checkForwardGraph(forward, image, logits));
  TrainingGraph tg;
  ir::Graph& g = tg.graph;
  g = forward;
  // Copies of a Tensor alias their buffer; clone so training never writes into the
  // caller's weights. Deferred ones (recipes) have no buffer to share.
  for (auto& [id, tensor] : g.initializers)
    if (!tensor.isDeferred()) tensor = tensor.clone();
  tg.image = image;
  tg.logits = logits;
  trainBatchNorms(g);
  tg.labels = g.addInput("labels", ir::TensorType{ir::DType::I64, labelShapeFor(forward.value(logits).type)});
  tg.lr = g.addInput("lr", ir::TensorType{ir::DType::F32, {}});
  auto loss = appendLoss(g, logits, tg.labels);
  if (!loss) return loss.error();
  tg.loss = *loss;

  const std::vector<ValueId> params = g.params();
  ValueId seed = g.addConst("loss.grad_seed", ir::Tensor::scalarF32(1.0f));
  auto grads = appendGradients(g, tg.loss, seed, params);
  if (!grads) return grads.error();
  if (config.accumulationSteps < 1) return makeError("training graph: accumulation steps must be >= 1");

  const auto users = g.computeUsers();
  GradientEmitter emitter(g);
  if (config.accumulationSteps > 1) {
    grads = accumulateGradients(g, emitter, users, params, std::move(*grads), config.accumulationSteps);
    if (!grads) return grads.error();
  }
  ValueId step = ir::kNoValue;
  if (config.optimizer == Optimizer::Adam) {
    auto counted = appendAdamStep(g, emitter);
    if (!counted) return counted.error();
    step = *counted;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    emitter.setContext(scopeOfParam(g, users, params[i]), ir::NodeRole::Optimizer, g.value(params[i]).name);
    DFC_TRY(appendParamUpdate(g, emitter, config, params[i], (*grads)[i], tg.lr, step));
  }
  g.outputs = {tg.loss, tg.logits};
  return tg;
}

}  // namespace dfc::autograd
