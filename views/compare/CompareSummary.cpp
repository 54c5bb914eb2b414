#include "compare/CompareSummary.h"

#include <QCoreApplication>
#include <algorithm>
#include <map>

#include "schedule/RoleStyle.h"

namespace dfc::views {
namespace {

QString tr(const char* text) { return QCoreApplication::translate("CompareView", text); }

QString us(double v) {
  if (v >= 1e6) return QStringLiteral("%1 s").arg(v / 1e6, 0, 'f', 3);
  if (v >= 1e3) return QStringLiteral("%1 ms").arg(v / 1e3, 0, 'f', 2);
  return QStringLiteral("%1 us").arg(v, 0, 'f', 1);
}

}  // namespace

CompareSide summarizeSide(const pef::Pef& pef, const profile::CompactTrace* trace) {
  CompareSide side;
  side.label = QStringLiteral("%1 -%2 (%3)")
                   .arg(QString::fromStdString(pef.meta.model), QString::fromStdString(pef.meta.optLevel),
                        QString::fromStdString(pef.meta.arch));
  const auto& plan = pef.plan;
  side.sections = static_cast<int>(plan.sections.size());
  side.hypersections = static_cast<int>(plan.hypersections.size());
  std::map<int, const partition::Section*> byId;
  for (const auto& s : plan.sections) {
    byId[s.id] = &s;
    ++side.sectionsByRole[ir::roleIndex(s.type)];
    side.maxPcus = std::max(side.maxPcus, s.estimate.pcus);
    side.maxPmus = std::max(side.maxPmus, s.estimate.pmus);
  }
  for (int id : plan.schedule)
    if (auto it = byId.find(id); it != byId.end()) side.estimatedUs += it->second->estimate.latencyUs;
  if (trace) {
    // tid 0 is the whole model run: one slice per section call.
    for (const auto& e : trace->events) {
      if (e.ph != 'X' || trace->threads[e.thread].tid != 0) continue;
      side.hasRun = true;
      side.measuredUs += e.dur;
      ++side.measuredSlices;
    }
  }
  return side;
}

CompareSummary compareRuns(const pef::Pef& left, const profile::CompactTrace* leftTrace, const pef::Pef& right,
                           const profile::CompactTrace* rightTrace) {
  CompareSummary s;
  s.left = summarizeSide(left, leftTrace);
  s.right = summarizeSide(right, rightTrace);
  s.estimatedRatio = s.left.estimatedUs > 0 ? s.right.estimatedUs / s.left.estimatedUs : 0;
  s.measuredRatio = s.left.measuredUs > 0 ? s.right.measuredUs / s.left.measuredUs : 0;
  return s;
}

QStringList CompareSummary::lines() const {
  QStringList out;
  auto row = [&](const QString& what, const QString& a, const QString& b) {
    out << QStringLiteral("%1: %2 → %3").arg(what, a, b);
  };
  row(tr("Sections"), QString::number(left.sections), QString::number(right.sections));
  row(tr("Hypersections"), QString::number(left.hypersections), QString::number(right.hypersections));
  QStringList roleNames, leftCounts, rightCounts;
  for (const ir::RoleInfo& role : ir::roles()) {
    roleNames << roleLabel(role.role);
    leftCounts << QString::number(left.sectionsByRole[ir::roleIndex(role.role)]);
    rightCounts << QString::number(right.sectionsByRole[ir::roleIndex(role.role)]);
  }
  row(tr("Sections by role (%1)").arg(roleNames.join(QStringLiteral(" / "))), leftCounts.join(QLatin1Char('/')),
      rightCounts.join(QLatin1Char('/')));
  row(tr("Estimated step latency"), us(left.estimatedUs), us(right.estimatedUs));
  if (estimatedRatio > 0) out.last() += QStringLiteral(" (×%1)").arg(estimatedRatio, 0, 'f', 2);
  row(tr("Largest section PCUs / PMUs"), QStringLiteral("%1 / %2").arg(left.maxPcus).arg(left.maxPmus),
      QStringLiteral("%1 / %2").arg(right.maxPcus).arg(right.maxPmus));
  if (left.hasRun || right.hasRun) {
    row(tr("Measured total (section calls)"), left.hasRun ? us(left.measuredUs) : tr("no run"),
        right.hasRun ? us(right.measuredUs) : tr("no run"));
    if (measuredRatio > 0) out.last() += QStringLiteral(" (×%1)").arg(measuredRatio, 0, 'f', 2);
  }
  return out;
}

}  // namespace dfc::views
