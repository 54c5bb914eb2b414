#include "arch/CollectiveModel.h"

#include <algorithm>
#include <cmath>

namespace dfc::arch {
namespace {

double transferUs(double bytes, double gbps) { return bytes / (gbps * 1e3); }  // GB/s = 1e3 bytes/us

double ringUs(double bytes, int w, double gbps, double latencyUs) {
  const double steps = 2.0 * (w - 1);
  return steps * latencyUs + transferUs(steps / w * bytes, gbps);
}

// Reduce up and broadcast down two trees of half the buffer each: every rank
// sends and receives B in each phase, over log2(W) levels of latency.
double treeUs(double bytes, int w, double gbps, double latencyUs) {
  return 2.0 * std::ceil(std::log2(static_cast<double>(w))) * latencyUs + transferUs(2.0 * bytes, gbps);
}

// Chips of one replica: reduce-scatter and allgather over PCIe around a ring across replicas on a 1/n share.
double hierarchicalUs(const ArchSpec& a, double bytes, int w) {
  const int n = std::max(a.chips, 1);
  const double pcieLatencyUs = 1.0;  // one PCIe message; small beside the network's
  const double within = 2.0 * (n - 1) * pcieLatencyUs + transferUs(2.0 * (n - 1) / n * bytes, a.pcieGbps);
  return within + ringUs(bytes / n, w, a.dpLinkGbps, a.dpLinkLatencyUs);
}

}  // namespace

std::vector<CollectiveEstimate> allreduceEstimates(const ArchSpec& a, double bytes, int worldSize) {
  const int w = std::max(worldSize, 2);
  std::vector<CollectiveEstimate> out = {
      {"ring", ringUs(bytes, w, a.dpLinkGbps, a.dpLinkLatencyUs)},
      {"double-tree", treeUs(bytes, w, a.dpLinkGbps, a.dpLinkLatencyUs)},
  };
  if (a.chips > 1) out.push_back({"hierarchical", hierarchicalUs(a, bytes, w)});
  std::stable_sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.us < y.us; });
  return out;
}

CollectiveEstimate bestAllreduce(const ArchSpec& a, double bytes, int worldSize) {
  return allreduceEstimates(a, bytes, worldSize).front();
}

AllreduceLinks allreduceLinks(const ArchSpec& a) {
  AllreduceLinks links;
  links.gbps = a.dpLinkGbps;
  links.latencyUs = a.dpLinkLatencyUs;
  if (a.pcieGbps > 0) links.hostGbps = a.pcieGbps;
  return links;
}

namespace {

// Pipelined double tree: each tree moves half the buffer in chunks; a step
// moves one chunk per child in (reduce) or out (broadcast) of a rank, and the
// pipeline fills over the tree's depth.
double pipelinedTreeUs(double bytes, int w, const AllreduceLinks& l, double chunkBytes) {
  const double half = bytes / 2, chunk = std::max(1.0, std::min(chunkBytes, half));
  const double chunks = std::max(1.0, std::ceil(half / chunk));
  const double depth = std::ceil(std::log2(static_cast<double>(w)));
  const double perStepBytes = chunk * std::min(2, w - 1);
  return 2.0 * (depth + chunks - 1) * (l.latencyUs + transferUs(perStepBytes, l.gbps));
}

double ring2dUs(double bytes, int w, int local, const AllreduceLinks& l) {
  local = std::clamp(local, 1, w);
  const int hosts = w / local;
  const double inHost = 2.0 * (local - 1) * (l.hostLatencyUs + transferUs(bytes / local, l.hostGbps));
  const double acrossHosts = hosts > 1 ? ringUs(bytes / local, hosts, l.gbps, l.latencyUs) : 0.0;
  return inHost + acrossHosts;
}

}  // namespace

double estimateAllreduceUs(std::string_view algorithm, double bytes, int worldSize, int ranksPerHost,
                           const AllreduceLinks& links, double chunkBytes) {
  if (worldSize < 2 || bytes <= 0) return 0;
  const double ring = ringUs(bytes, worldSize, links.gbps, links.latencyUs);
  if (algorithm == "ring") return ring;
  const double tree = pipelinedTreeUs(bytes, worldSize, links, chunkBytes);
  if (algorithm == "tree") return tree;
  if (algorithm == "mpi") return std::min(ring, tree);
  if (algorithm == "2d-ring") return ring2dUs(bytes, worldSize, ranksPerHost, links);
  return 0;
}

AllreduceLinks chipLinks(const ArchSpec& a) {
  AllreduceLinks links;
  links.gbps = links.hostGbps = a.chipLinkGbpsOrPcie();
  links.latencyUs = links.hostLatencyUs = a.chipLinkLatencyUs;
  return links;
}

double estimateAllgatherUs(double bytes, int worldSize, const AllreduceLinks& links) {
  if (worldSize < 2 || bytes <= 0) return 0;
  const double steps = worldSize - 1;
  return steps * (links.latencyUs + transferUs(bytes / worldSize, links.gbps));
}

double chooseBucketBytes(const ArchSpec& a, double totalBytes, int worldSize, double bandwidthShare) {
  const int w = std::max(worldSize, 2);
  // transfer / (latency + transfer) >= share  <=>  transfer >= latency * share / (1 - share)
  const double latencyUs = 2.0 * (w - 1) * a.dpLinkLatencyUs;
  const double transferNeededUs = latencyUs * bandwidthShare / (1.0 - bandwidthShare);
  const double bytes = transferNeededUs * a.dpLinkGbps * 1e3 * w / (2.0 * (w - 1));
  return std::clamp(bytes, 4096.0, std::max(totalBytes, 4096.0));
}

}  // namespace dfc::arch
