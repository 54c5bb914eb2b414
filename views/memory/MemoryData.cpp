#include "memory/MemoryData.h"

#include <QCoreApplication>
#include <algorithm>

#include "analysis/CompiledArch.h"

namespace dfc::views {

std::array<int64_t, analysis::kMemKinds> MemoryViewData::stack(int call, MemTier tier) const {
  return timeline.points.at(static_cast<size_t>(call)).bytes[static_cast<size_t>(tier)];
}

int64_t MemoryViewData::stackTotal(int call, MemTier tier) const {
  int64_t sum = 0;
  for (int64_t b : stack(call, tier)) sum += b;
  return sum;
}

int64_t MemoryViewData::maxTotal(MemTier tier) const {
  int64_t most = 0;
  for (int c = 0; c < calls(); ++c) most = std::max(most, stackTotal(c, tier));
  return most;
}

MemoryViewData buildMemoryViewData(const pef::Pef& pef) {
  MemoryViewData data;
  data.title = QString::fromStdString(pef.meta.pefName.empty() ? pef.meta.model : pef.meta.pefName);
  auto arch = analysis::compiledArch(pef.meta);
  if (!arch) {
    data.error = QString::fromStdString(arch.error().message());
    return data;
  }
  data.timeline = analysis::memoryTimeline(pef.graph, pef.plan, *arch);
  data.csv = QString::fromStdString(analysis::memoryCsv(data.timeline, pef.plan));
  for (const partition::Section& s : pef.plan.sections) data.sectionNames.push_back(QString::fromStdString(s.name));
  for (const analysis::MemoryPoint& p : data.timeline.points) data.callSections.push_back(p.section);
  std::vector<int> sectionOfNode(pef.graph.nodes.size(), -1);
  for (const partition::Section& s : pef.plan.sections)
    for (ir::NodeId n : s.nodes) sectionOfNode[static_cast<size_t>(n)] = s.id;
  data.tensors.reserve(data.timeline.tensors.size());
  for (const analysis::LiveTensor& t : data.timeline.tensors) {
    const ir::Value& v = pef.graph.value(t.value);
    MemoryTensorInfo info{QString::fromStdString(v.name), v.producer, {}, -1};
    if (v.producer != ir::kNoNode) {
      info.producerName = QString::fromStdString(pef.graph.node(v.producer).name);
      info.producerSection = sectionOfNode[static_cast<size_t>(v.producer)];
    }
    data.tensors.push_back(std::move(info));
  }
  return data;
}

QString memoryViewCsv(const MemoryViewData& data) { return data.csv; }

QString memTierDisplayName(MemTier tier) {
  switch (tier) {
    case MemTier::Sram:
      return QCoreApplication::translate("dfc::views::MemoryPanel", "On-chip SRAM");
    case MemTier::Hbm:
      return QCoreApplication::translate("dfc::views::MemoryPanel", "HBM");
    case MemTier::Ddr:
      return QCoreApplication::translate("dfc::views::MemoryPanel", "DDR");
    case MemTier::Host:
      return QCoreApplication::translate("dfc::views::MemoryPanel", "Host arena (CPU run)");
  }
  return {};
}

QString memKindDisplayName(MemKind kind) {
  switch (kind) {
    case MemKind::Weights:
      return QCoreApplication::translate("dfc::views::MemoryPanel", "weights");
    case MemKind::Activations:
      return QCoreApplication::translate("dfc::views::MemoryPanel", "activations");
    case MemKind::Gradients:
      return QCoreApplication::translate("dfc::views::MemoryPanel", "gradients");
    case MemKind::OptimizerState:
      return QCoreApplication::translate("dfc::views::MemoryPanel", "optimizer state");
    case MemKind::KvCache:
      return QCoreApplication::translate("dfc::views::MemoryPanel", "KV cache");
  }
  return {};
}

}  // namespace dfc::views
