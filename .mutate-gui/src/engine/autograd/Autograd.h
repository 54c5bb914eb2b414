#pragma once
// Builds the training graph the compiler compiles by default: the forward
// graph, softmax cross-entropy loss, reverse-mode gradients (Backward role)
// and an optimizer update per parameter (Optimizer role) whose results are
// written back through Graph::updates.
#include "ir/Graph.h"
#include "support/Error.h"

namespace dfc::autograd {

enum class Optimizer { Sgd, Momentum, Adam };

// Adam keeps m and v per parameter as Consts written back through
// Graph::updates, and one shared step counter: Const "adam.step" (f32[], 0 at
// start) that the optimizer role increments with an add before the updates, so
// adam_update sees the 1-based step t for its bias correction.
struct TrainingConfig {
  Optimizer optimizer = Optimizer::Momentum;
  double momentum = 0.9;
  double weightDecay = 0.0;
  double beta1 = 0.9;     // Adam
  double beta2 = 0.999;   // Adam
  double epsilon = 1e-8;  // Adam
  // > 1: gradient accumulation. Each parameter's gradient is added into a sum
  // (Const "<param>.grad_sum", Accumulate role, written back each step); the
  // optimizer steps on sum / steps every `steps`-th step, when the executor
  // also sets the sums back to zero (runtime/Executor.h).
  int accumulationSteps = 1;
};

struct TrainingGraph {
  ir::Graph graph;  // inputs = {image, labels, lr}; outputs = {loss, logits}
  ir::ValueId image = ir::kNoValue;
  ir::ValueId labels = ir::kNoValue;  // i64 [batch], or [batch, seq] for language models
  ir::ValueId lr = ir::kNoValue;      // f32 [] learning rate, fed each step
  ir::ValueId loss = ir::kNoValue;    // f32 []
  ir::ValueId logits = ir::kNoValue;
};

// `forward` must have its image as the only input and `logits` [N, C] as output,
// or (language models) logits [B, T, V]: then labels are i64 [B, T] and the loss,
// in scope "loss", is the mean cross-entropy over the B*T positions.
// Fails with an error naming the node if an op has no gradient rule.
Expected<TrainingGraph> buildTrainingGraph(const ir::Graph& forward, ir::ValueId image, ir::ValueId logits,
                                           const TrainingConfig& config);

// Appends to `graph` the nodes computing d(target)/d(wrt) for each `wrt`, given the
// seed gradient `seed` of `target` (same type as target). Used by buildTrainingGraph
// and by tests of individual gradient rules. Returns the gradient values, in `wrt` order.
Expected<std::vector<ir::ValueId>> appendGradients(ir::Graph& graph, ir::ValueId target, ir::ValueId seed,
                                                   const std::vector<ir::ValueId>& wrt);

}  // namespace dfc::autograd
