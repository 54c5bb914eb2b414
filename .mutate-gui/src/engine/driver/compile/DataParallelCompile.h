#pragma once
// The compile's data-parallel part (--data-parallel -ws N): gradient-reduce
// nodes inserted after the passes, one section per bucket, and their
// collective estimates and the step overlap in the compile report.
#include <string>
#include <vector>

#include "arch/CollectiveModel.h"
#include "ir/Graph.h"
#include "partition/Decomposer.h"
#include "partition/Plan.h"
#include "support/Error.h"
#include "support/JsonWriter.h"

namespace dfc::driver {

struct ReduceBucketPlan {
  int sectionId = -1;
  int gradients = 0;
  double bytes = 0;
  std::vector<arch::CollectiveEstimate> estimates;  // fastest first: the chosen algorithm
};

struct DataParallelPlan {
  int worldSize = 0;         // 0: not a data-parallel compile
  double bucketBytes = 0;
  bool bucketFromCostModel = true;
  double linkGbps = 0, linkLatencyUs = 0;
  double hostLinkGbps = 0, hostLinkLatencyUs = 0;  // ranks of one host (2d-ring's inner rings)
  std::vector<ReduceBucketPlan> buckets;
  double computeUs = 0;      // estimated step without the allreduces
  double stepUs = 0;         // with them, overlapped where the schedule allows
  double exposedUs = 0;      // the allreduce time not hidden behind compute
};

// Inserts the reduce nodes into `graph` (bucket size: `bucketKb`, or the cost model's choice).
Expected<DataParallelPlan> planGradientReduce(ir::Graph& graph, const arch::ArchSpec& arch, int worldSize,
                                              int64_t bucketKb, double bandwidthShare = arch::kBandwidthShare);
// One subgraph per reduce node: each bucket is its own section (one allreduce each).
void splitReduceSubgraphs(const ir::Graph& graph, std::vector<partition::Subgraph>& subgraphs);
// Sets each reduce section's estimate to its allreduce's and simulates the step's overlap.
void estimateReduceSections(partition::Plan& plan, const ir::Graph& graph, const arch::ArchSpec& arch,
                            DataParallelPlan& dp);
void writeDataParallelReport(support::JsonWriter& w, const DataParallelPlan& dp);
// The links the report's data_parallel block gives (defaults for figures an older PEF lacks).
arch::AllreduceLinks dataParallelLinks(const std::string& reportJson);
// The report's data_parallel block as lines for dfc inspect (none without one).
std::vector<std::string> describeDataParallelReport(const std::string& reportJson);

}  // namespace dfc::driver
