#pragma once
// Tensor parallelism for inference, Megatron-style, as an annotation the
// estimator applies (the graph is not rewritten; the host run executes the
// whole model on one host). Values carry a layout, propagated in topological
// order from the graph's inputs (replicated on every chip):
//   - a GEMM with a weight operand and a replicated input is column parallel:
//     the weight's columns split over the chips, the result sharded;
//   - a GEMM with a weight operand and a sharded input is row parallel: each
//     chip holds a partial sum, an all-reduce of the result makes it whole;
//   - an embedding lookup is vocabulary parallel: all-reduce of its rows;
//   - other ops keep their inputs' sharding (attention heads, SwiGLU);
//     a reduction over the last axis of a column-sharded value, or an op
//     mixing sharded and replicated activations, all-gathers the sharded one;
//   - a sharded graph output (the LM head's logits) is all-gathered.
// A projection whose result is split into heads (a reshape to [.., H, Dh])
// splits over at most H chips: with 8 KV heads on 16 chips each KV head lives
// on 2 chips, as grouped-query attention is served in practice.
#include <vector>

#include "ir/Graph.h"

namespace dfc::estimate {

enum class Layout {
  Replicated,
  ShardedLast,   // split along the last axis (a column-parallel result)
  ShardedOther,  // split along another axis (heads after the head split)
};

struct Collective {
  enum class Kind { AllReduce, AllGather } kind = Kind::AllReduce;
  double bytes = 0;  // the whole buffer (per chip: its reduced or gathered result), host dtype
};

struct NodeSplit {
  int flopShare = 1;                  // the node's FLOP divide by this on each chip
  std::vector<int> inputShare;        // per input: each chip reads 1/share of its bytes
  std::vector<Collective> collectives;  // after the node
};

struct ValueSplit {
  Layout layout = Layout::Replicated;
  int share = 1;  // chips splitting it (1: whole on every chip)
};

struct TensorParallelPlan {
  int chips = 1;
  std::vector<NodeSplit> nodes;    // by NodeId
  std::vector<ValueSplit> values;  // by ValueId
};

// `chips` >= 1; 1 gives every node a share of 1 and no collectives.
TensorParallelPlan planTensorParallel(const ir::Graph& graph, int chips);

}  // namespace dfc::estimate
