#pragma once
// Estimated time of a gradient allreduce between data-parallel replicas, for
// the algorithms the backend notes name. Each rank is one replica on
// `chipsPerRank` chips; replicas talk over the arch's dp_link (bandwidth,
// per-message latency), chips of one replica over PCIe.
//   ring             2(W-1) steps of B/W bytes: latency-heavy, bandwidth-optimal
//   double-tree      two pipelined binary trees: 2 log2(W) latencies, 2B over the link
//   hierarchical     reduce-scatter over the replica's chips (PCIe), ring across
//                    replicas on B/n bytes, allgather over the chips (2D ring)
#include <string>
#include <vector>

#include "arch/ArchSpec.h"

namespace dfc::arch {

struct CollectiveEstimate {
  std::string algorithm;  // "ring", "double-tree" or "hierarchical"
  double us = 0;          // estimated allreduce latency
};

// Every algorithm's estimate for `bytes` over `worldSize` replicas (>= 2), fastest first.
std::vector<CollectiveEstimate> allreduceEstimates(const ArchSpec& arch, double bytes, int worldSize);
CollectiveEstimate bestAllreduce(const ArchSpec& arch, double bytes, int worldSize);

// The bucket size the compile uses when the user gives none: the smallest
// bucket whose transfer time is at least kBandwidthShare of its ring
// allreduce time (below that, per-message latency dominates and more buckets
// only add it), but no larger than the gradients (`totalBytes`).
constexpr double kBandwidthShare = 0.8;
double chooseBucketBytes(const ArchSpec& arch, double totalBytes, int worldSize,
                         double bandwidthShare = kBandwidthShare);  // in (0, 1)

}  // namespace dfc::arch
