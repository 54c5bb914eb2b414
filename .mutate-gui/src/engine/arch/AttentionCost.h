#pragma once
// The chip plan of an attention chain (ir/AttentionPattern.h) a section holds
// whole: the tiled FlashAttention form, charged as one operator instead of its
// ops one by one. Forward: a block of Q rows (as many as one PMU holds) stays
// on chip while K and V stream past it, so the T x T scores only ever exist as
// one tile; K and V are read from DDR/HBM once per query block. PMUs: the Q,
// K, V and O tiles double-buffered, the score tile, the running row statistics
// and the saved log-sum-exp. Backward: a block of K and V rows stays while Q,
// dO, O and the log-sum-exp stream past once per key block; dQ's partial sums
// go out and back between key blocks; PMUs for the streamed tiles, the P and dS
// tiles and the row statistics.
#include <vector>

#include "arch/CostModel.h"

namespace dfc::arch {

struct TiledAttention {
  std::vector<ir::NodeId> nodes;        // the chain's nodes (all in the section)
  std::vector<ir::ValueId> neverStored;  // scores, probabilities and their gradients: no DDR traffic
  std::vector<ir::ValueId> extraReads;   // read besides the nodes' inputs (the backward reads o)
  double statsBytes = 0;                // log-sum-exp written by the forward, read by the backward
  double restreamBytes = 0;             // K/V (forward) or Q/dO/O (backward) read again per block, dQ partial sums
  OpCost cost;                          // as one GEMM-class operator
};

// The attention chains, forward and backward, that `nodes` hold whole.
std::vector<TiledAttention> tiledAttention(const CostModel& cost, const ir::Graph& graph,
                                           const std::vector<ir::NodeId>& nodes,
                                           const std::vector<std::vector<ir::NodeId>>& users);

}  // namespace dfc::arch
