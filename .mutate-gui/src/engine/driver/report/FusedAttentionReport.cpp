#include "driver/report/FusedAttentionReport.h"

#include <cstdio>
#include <set>

#include "runtime/AttentionFusion.h"
#include "runtime/kernels/FlashAttention.h"

namespace dfc::driver {
namespace {

std::string attentionLine(const FusedAttention& a) {
  auto ll = [](int64_t v) { return static_cast<long long>(v); };
  char sections[32], shape[96], buf[320];
  if (a.backwardSection >= 0) std::snprintf(sections, sizeof sections, "%d+%d", a.forwardSection, a.backwardSection);
  else std::snprintf(sections, sizeof sections, "%d", a.forwardSection);
  std::snprintf(shape, sizeof shape, "%lld x [%lld x %lld] d%lld%s", ll(a.matrices), ll(a.queries), ll(a.keys), ll(a.dim),
                a.causal ? " causal" : "");
  std::snprintf(buf, sizeof buf, "  %7s  %-32.32s %-34s %lldx%lld   %s", sections, a.softmax.c_str(), shape, ll(a.queryTile),
                ll(a.keyTile), a.backwardSection >= 0 ? "forward + backward" : "forward");
  return buf;
}

}  // namespace

std::vector<FusedAttention> findFusedAttention(const pef::Pef& pef) {
  const ir::Graph& graph = pef.graph;
  std::vector<int> sectionOf(graph.nodes.size(), -1);
  for (const partition::Section& s : pef.plan.sections)
    for (ir::NodeId n : s.nodes) sectionOf[static_cast<size_t>(n)] = s.id;
  std::vector<bool> leavesStep(graph.values.size(), false);
  for (ir::ValueId v : graph.outputs) leavesStep[static_cast<size_t>(v)] = true;
  for (const ir::StateUpdate& u : graph.updates) leavesStep[static_cast<size_t>(u.newValue)] = true;
  std::vector<FusedAttention> out;
  for (const auto& p : runtime::findAttention(graph, sectionOf, graph.computeUsers(), leavesStep)) {
    FusedAttention a;
    a.softmax = graph.node(p->softmax).name;
    a.forwardSection = sectionOf[static_cast<size_t>(p->softmax)];
    if (p->hasBackward()) a.backwardSection = sectionOf[static_cast<size_t>(p->dSoftmax)];
    a.matrices = p->matrices;
    a.queries = p->queries;
    a.keys = p->keys;
    a.dim = p->dim;
    a.causal = p->causal;
    a.queryTile = runtime::kernels::kQueryBlock;
    a.keyTile = runtime::kernels::kKeyBlock;
    out.push_back(std::move(a));
  }
  return out;
}

std::vector<std::string> describeFusedAttention(const pef::Pef& pef) {
  const std::vector<FusedAttention> found = findFusedAttention(pef);
  if (found.empty()) return {};
  std::set<int> sections;
  for (const FusedAttention& a : found) {
    sections.insert(a.forwardSection);
    if (a.backwardSection >= 0) sections.insert(a.backwardSection);
  }
  std::vector<std::string> lines{"\nfused attention on the host (FlashAttention-style: online softmax, no T x T scores "
                                 "stored): " + std::to_string(found.size()) + " in " + std::to_string(sections.size()) +
                                     " section(s)",
                                 "  sect(s)  softmax                          matrices x [queries x keys] head   tile     "
                                 "kernels"};
  for (const FusedAttention& a : found) lines.push_back(attentionLine(a));
  return lines;
}

}  // namespace dfc::driver
