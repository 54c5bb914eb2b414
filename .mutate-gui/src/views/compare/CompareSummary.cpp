#include "compare/CompareSummary.h"

#include <QCoreApplication>
#include <QLocale>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "profile/RawArgs.h"
#include "timeline/SliceInfo.h"

#include "schedule/RoleStyle.h"

namespace dfc::views {
namespace {

QString tr(const char* text) { return QCoreApplication::translate("CompareView", text); }

QString us(double v) { return formatDuration(v); }

}  // namespace

CompareSide summarizeSide(const pef::Pef& pef, const profile::CompactTrace* trace) {
  CompareSide side;
  side.label = QStringLiteral("%1 -%2 (%3)")
                   .arg(QString::fromStdString(pef.meta.model), QString::fromStdString(pef.meta.optLevel),
                        QString::fromStdString(pef.meta.arch));
  // A compile steered by --mac-human-decision (dfstudio's "Recompile with decisions") says so.
  if (!pef.meta.decisions.empty()) side.label += QCoreApplication::translate("CompareSummary", ", with decisions");
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
  side.batchSize = pef.meta.batchSize;
  if (trace) {
    // tid 0 is the whole model run: one slice per section call.
    std::set<int64_t> steps;
    for (const auto& e : trace->events) {
      if (e.ph != 'X' || trace->threads[e.thread].tid != 0) continue;
      side.hasRun = true;
      side.measuredUs += e.dur;
      ++side.measuredSlices;
      const std::string args = trace->argsJson(e);
      if (const auto step = profile::findRawArg(args, "step"))
        if (const auto n = step->number()) steps.insert(static_cast<int64_t>(*n));
    }
    side.steps = steps.size();
  }
  return side;
}

namespace {

QString hypersectionName(const partition::Plan& plan, int sectionId) {
  if (sectionId < 0 || static_cast<size_t>(sectionId) >= plan.sections.size()) return {};
  const auto& s = plan.sections[static_cast<size_t>(sectionId)];
  if (s.hypersection >= 0 && static_cast<size_t>(s.hypersection) < plan.hypersections.size())
    return QString::fromStdString(plan.hypersections[static_cast<size_t>(s.hypersection)].name);
  return QString::fromStdString(s.name);
}

// "hs34_matmul" -> "matmul"; a name without the id prefix stays as it is.
QString withoutId(const QString& name) {
  if (!name.startsWith(QLatin1String("hs"))) return name;
  qsizetype i = 2;
  while (i < name.size() && name[i].isDigit()) ++i;
  if (i == 2 || i >= name.size() || name[i] != QLatin1Char('_')) return name;
  return name.mid(i + 1);
}

// Match keys of one side's hypersections, numbered in order of first call.
std::map<QString, QString> matchKeys(const partition::Plan& plan) {
  std::map<QString, QString> keys;
  std::map<QString, int> seen;
  auto add = [&](const QString& name) {
    if (name.isEmpty() || keys.count(name)) return;
    const QString base = withoutId(name);
    const int k = ++seen[base];
    keys[name] = k == 1 ? base : QStringLiteral("%1 #%2").arg(base).arg(k);
  };
  for (int id : plan.schedule) add(hypersectionName(plan, id));
  for (const auto& hs : plan.hypersections) add(QString::fromStdString(hs.name));
  return keys;
}

// One side's calls and estimates per step, and measured time per step by key.
void addSide(std::map<QString, CompareRow>& rows, int side, const pef::Pef& pef, const profile::CompactTrace* trace,
             const CompareSide& summary, const std::map<QString, QString>& keyOf) {
  auto keyFor = [&](const QString& name) {
    const auto it = keyOf.find(name);
    return it == keyOf.end() ? name : it->second;
  };
  for (int id : pef.plan.schedule) {
    const QString name = hypersectionName(pef.plan, id);
    CompareRow& row = rows[keyFor(name)];
    row.names[side] = name;
    ++row.calls[side];
    row.estUs[side] += pef.plan.sections[static_cast<size_t>(id)].estimate.latencyUs;
  }
  if (!trace || summary.steps == 0) return;
  for (const auto& e : trace->events) {
    if (e.ph != 'X' || trace->threads[e.thread].tid != 0) continue;
    const std::string_view key8 = trace->string(e.colorKey);  // the hypersection arg, else the name
    const QString key = QString::fromUtf8(key8.data(), static_cast<qsizetype>(key8.size()));
    CompareRow& row = rows[keyFor(key)];
    if (row.names[side].isEmpty()) row.names[side] = key;
    row.measuredUs[side] += e.dur / static_cast<double>(summary.steps);
  }
}

std::vector<CompareRow> matchRows(const pef::Pef& left, const profile::CompactTrace* leftTrace, const pef::Pef& right,
                                  const profile::CompactTrace* rightTrace, const CompareSummary& s) {
  std::map<QString, CompareRow> byKey;
  addSide(byKey, 0, left, leftTrace, s.left, s.keyOf[0]);
  addSide(byKey, 1, right, rightTrace, s.right, s.keyOf[1]);
  std::vector<CompareRow> rows;
  const bool measured = s.left.steps > 0 && s.right.steps > 0;
  for (auto& [key, row] : byKey) {
    row.key = key;
    row.measured = measured;
    rows.push_back(row);
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const CompareRow& a, const CompareRow& b) { return std::abs(a.deltaUs()) > std::abs(b.deltaUs()); });
  return rows;
}

}  // namespace

CompareSummary compareRuns(const pef::Pef& left, const profile::CompactTrace* leftTrace, const pef::Pef& right,
                           const profile::CompactTrace* rightTrace) {
  CompareSummary s;
  s.left = summarizeSide(left, leftTrace);
  s.right = summarizeSide(right, rightTrace);
  s.estimatedRatio = s.left.estimatedUs > 0 ? s.right.estimatedUs / s.left.estimatedUs : 0;
  s.measuredRatio = s.left.measuredPerStepUs() > 0 ? s.right.measuredPerStepUs() / s.left.measuredPerStepUs() : 0;
  s.keyOf[0] = matchKeys(left.plan);
  s.keyOf[1] = matchKeys(right.plan);
  s.rows = matchRows(left, leftTrace, right, rightTrace, s);
  return s;
}

QString CompareRow::label() const {
  if (names[0].isEmpty() || names[1].isEmpty() || names[0] == names[1]) return names[0].isEmpty() ? names[1] : names[0];
  return QStringLiteral("%1 ↔ %2").arg(names[0], names[1]);
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
    auto steps = [](const CompareSide& side) {
      return side.hasRun ? QLocale().toString(static_cast<qulonglong>(side.steps)) : tr("no run");
    };
    row(tr("Steps run"), steps(left), steps(right));
    auto perStep = [](const CompareSide& side) { return side.steps ? us(side.measuredPerStepUs()) : tr("n/a"); };
    row(tr("Measured per step (section calls)"), perStep(left), perStep(right));
    if (measuredRatio > 0) out.last() += QStringLiteral(" (×%1)").arg(measuredRatio, 0, 'f', 2);
    if (left.measuredPerSampleUs() > 0 || right.measuredPerSampleUs() > 0) {
      auto perSample = [](const CompareSide& side) {
        return side.measuredPerSampleUs() > 0 ? us(side.measuredPerSampleUs()) : tr("n/a");
      };
      row(tr("Measured per sample"), perSample(left), perSample(right));
    }
  }
  return out;
}

}  // namespace dfc::views
