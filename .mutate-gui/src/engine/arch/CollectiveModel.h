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
#include <string_view>
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

// The runtime's allreduce algorithms (dfc run --allreduce), alpha-beta per
// step: alpha the link's per-message latency, beta its bandwidth. Ranks of one
// host talk over the host link (PCIe), hosts over the dp link.
//   ring     2(p-1) steps of B/p bytes
//   tree     reduce then broadcast, each pipelined: log2(p) (the depth) +
//            chunks - 1 steps, a step one chunk per child through a rank
//   2d-ring  in-host reduce-scatter and all-gather (L-1 steps of B/L each), a
//            ring across the H hosts on B/L bytes
//   mpi      what a tuned MPI picks by size: the better of ring and tree
struct AllreduceLinks {
  double gbps = 25, latencyUs = 5;           // between hosts (the arch's dp link)
  double hostGbps = 32, hostLatencyUs = 1;   // between ranks of one host (PCIe)
};
AllreduceLinks allreduceLinks(const ArchSpec& arch);
// `algorithm`: "mpi", "ring", "tree" or "2d-ring" (others: 0); `ranksPerHost`
// is used by 2d-ring only (must divide worldSize); `chunkBytes` by tree only.
double estimateAllreduceUs(std::string_view algorithm, double bytes, int worldSize, int ranksPerHost,
                           const AllreduceLinks& links, double chunkBytes);

// Tensor parallel inside one node: the chips' own link (chip_link_gbps, else
// PCIe; chip_link_latency_us) as both the host and the dp link.
AllreduceLinks chipLinks(const ArchSpec& arch);
// All-gather of `bytes` (the whole gathered buffer) over p ranks: a ring of
// p-1 steps, each one latency and B/p bytes.
double estimateAllgatherUs(double bytes, int worldSize, const AllreduceLinks& links);

}  // namespace dfc::arch
