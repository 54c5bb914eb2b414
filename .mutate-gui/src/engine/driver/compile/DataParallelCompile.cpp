#include "driver/compile/DataParallelCompile.h"

#include <simdjson.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "autograd/GradientReduce.h"
#include "driver/JsonNumber.h"

namespace dfc::driver {

Expected<DataParallelPlan> planGradientReduce(ir::Graph& graph, const arch::ArchSpec& arch, int worldSize,
                                              int64_t bucketKb, double bandwidthShare) {
  DataParallelPlan dp;
  dp.worldSize = worldSize;
  dp.linkGbps = arch.dpLinkGbps;
  dp.linkLatencyUs = arch.dpLinkLatencyUs;
  const arch::AllreduceLinks links = arch::allreduceLinks(arch);
  dp.hostLinkGbps = links.hostGbps;
  dp.hostLinkLatencyUs = links.hostLatencyUs;
  double total = 0;
  for (ir::ValueId v : autograd::findGradients(graph)) total += static_cast<double>(graph.value(v).type.byteSize());
  dp.bucketFromCostModel = bucketKb <= 0;
  dp.bucketBytes = dp.bucketFromCostModel ? arch::chooseBucketBytes(arch, total, worldSize, bandwidthShare) : static_cast<double>(bucketKb) * 1024;
  auto buckets = autograd::insertGradientReduce(graph, dp.bucketBytes);
  if (!buckets) return buckets.error();
  for (const auto& b : *buckets)
    dp.buckets.push_back({-1, static_cast<int>(b.gradients.size()), b.bytes, arch::allreduceEstimates(arch, b.bytes, worldSize)});
  spdlog::info("data parallel: {} gradient bytes in {} buckets of <= {:.0f} KiB ({}), world size {}", total,
               dp.buckets.size(), dp.bucketBytes / 1024, dp.bucketFromCostModel ? "cost model" : "--allreduce-bucket-kb",
               worldSize);
  return dp;
}

void splitReduceSubgraphs(const ir::Graph& graph, std::vector<partition::Subgraph>& subgraphs) {
  std::vector<partition::Subgraph> out;
  out.reserve(subgraphs.size());
  for (auto& sub : subgraphs) {
    const bool reduce = !sub.nodes.empty() && graph.node(sub.nodes.front()).role == ir::NodeRole::Reduce;
    if (!reduce || sub.nodes.size() == 1) {
      out.push_back(std::move(sub));
      continue;
    }
    for (ir::NodeId n : sub.nodes) {
      partition::CutReason why{partition::CutKind::ReduceBucket,
                               "gradient bucket '" + graph.node(n).name + "': one all-reduce per section"};
      out.push_back({{n}, graph.node(n).scope, sub.rule, -1, n == sub.nodes.front() ? sub.cut : why});
    }
  }
  subgraphs = std::move(out);
}

namespace {

// Two streams: compute runs sections in schedule order; the link runs each
// reduce once its gradients are computed (its place in the schedule) and the
// link is free. Optimizer sections wait for the link: they read the averages.
void simulateOverlap(const partition::Plan& plan, DataParallelPlan& dp) {
  double compute = 0, link = 0, busy = 0;
  for (int id : plan.schedule) {
    const auto& s = plan.sections[static_cast<size_t>(id)];
    const double us = s.estimate.latencyUs;
    if (s.type == ir::NodeRole::Reduce) {
      link = std::max(link, compute) + us;
      continue;
    }
    if (s.type == ir::NodeRole::Optimizer) compute = std::max(compute, link);
    compute += us;
    busy += us;
  }
  dp.computeUs = busy;
  dp.stepUs = std::max(compute, link);
  dp.exposedUs = dp.stepUs - busy;
}

}  // namespace

void estimateReduceSections(partition::Plan& plan, const ir::Graph& graph, const arch::ArchSpec& arch,
                            DataParallelPlan& dp) {
  for (auto& s : plan.sections) {
    if (s.type != ir::NodeRole::Reduce || s.nodes.size() != 1) continue;
    const size_t k = static_cast<size_t>(graph.node(s.nodes.front()).intAttr("bucket", -1));
    if (k >= dp.buckets.size()) continue;
    ReduceBucketPlan& b = dp.buckets[k];
    b.sectionId = s.id;
    const double us = b.estimates.front().us;
    s.estimate.flop = 0;
    s.estimate.computeUs = 0;
    s.estimate.memoryUs = us;
    s.estimate.latencyUs = us;
  }
  simulateOverlap(plan, dp);
  spdlog::info("data parallel: estimated step {:.1f} us, of which {:.1f} us allreduce not hidden behind compute",
               dp.stepUs, dp.exposedUs);
}

void writeDataParallelReport(support::JsonWriter& w, const DataParallelPlan& dp) {
  w.key("data_parallel").beginObject();
  w.field("world_size", dp.worldSize).field("bucket_bytes", dp.bucketBytes);
  w.field("bucket_choice", dp.bucketFromCostModel ? "cost model" : "--allreduce-bucket-kb");
  w.field("link_gbps", dp.linkGbps).field("link_latency_us", dp.linkLatencyUs);
  w.field("host_link_gbps", dp.hostLinkGbps).field("host_link_latency_us", dp.hostLinkLatencyUs);
  w.field("est_compute_us", dp.computeUs).field("est_step_us", dp.stepUs).field("est_exposed_allreduce_us", dp.exposedUs);
  w.key("buckets").beginArray();
  for (const auto& b : dp.buckets) {
    w.beginObject().field("section_id", b.sectionId).field("gradients", b.gradients).field("bytes", b.bytes);
    w.field("algorithm", b.estimates.front().algorithm).field("est_us", b.estimates.front().us);
    w.key("alternatives").beginObject();
    for (const auto& e : b.estimates) w.field(e.algorithm, e.us);
    w.endObject().endObject();
  }
  w.endArray().endObject();
}

arch::AllreduceLinks dataParallelLinks(const std::string& reportJson) {
  arch::AllreduceLinks links;
  simdjson::dom::parser parser;
  simdjson::dom::element dp;
  if (parser.parse(reportJson).get(dp) || dp["data_parallel"].get(dp)) return links;
  auto take = [&](const char* key, double& out) {
    if (dp[key].error() == simdjson::SUCCESS) out = jsonNumber(dp, key);
  };
  take("link_gbps", links.gbps);
  take("link_latency_us", links.latencyUs);
  take("host_link_gbps", links.hostGbps);
  take("host_link_latency_us", links.hostLatencyUs);
  return links;
}

std::vector<std::string> describeDataParallelReport(const std::string& reportJson) {
  simdjson::dom::parser parser;
  simdjson::dom::element dp;
  if (parser.parse(reportJson).get(dp) || dp["data_parallel"].get(dp)) return {};
  std::string_view choice;
  if (dp["bucket_choice"].get(choice)) choice = "?";
  std::vector<std::string> lines;
  lines.push_back(fmt::format("data parallel: world size {:.0f} (a minimum), buckets <= {:.0f} KiB ({}), link {:g} GB/s, "
                              "{:g} us per message",
                              jsonNumber(dp, "world_size"), jsonNumber(dp, "bucket_bytes") / 1024, choice, jsonNumber(dp, "link_gbps"),
                              jsonNumber(dp, "link_latency_us")));
  simdjson::dom::array buckets;
  if (!dp["buckets"].get(buckets))
    for (simdjson::dom::element b : buckets) {
      std::string_view algorithm;
      if (b["algorithm"].get(algorithm)) algorithm = "?";
      lines.push_back(fmt::format("  section {:.0f}: {:.0f} gradients, {:.1f} KB, allreduce {} {:.1f} us",
                                  jsonNumber(b, "section_id"), jsonNumber(b, "gradients"), jsonNumber(b, "bytes") / 1e3, algorithm,
                                  jsonNumber(b, "est_us")));
    }
  lines.push_back(fmt::format("estimated step {:.1f} us: compute {:.1f} us + {:.1f} us of allreduce not overlapped",
                              jsonNumber(dp, "est_step_us"), jsonNumber(dp, "est_compute_us"), jsonNumber(dp, "est_exposed_allreduce_us")));
  return lines;
}

}  // namespace dfc::driver
