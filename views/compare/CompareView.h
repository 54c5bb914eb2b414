#pragma once
// Two compiles or runs side by side (-o0 vs -o3, sn30 vs sn40l): a graph and
// a timeline per side, timeline zoom/pan and graph zoom kept in step, a node
// picked on one side picks its hypersection on the other, one palette for
// both, and on top a summary (per step) beside the matched table of
// hypersections with estimated and measured time per step, biggest change first.
#include <QWidget>
#include <memory>
#include <optional>

#include "compare/CompareSummary.h"

class QLabel;
class QTableWidget;

namespace dfc::views {

class GraphView;
class TimelineView;

class CompareView : public QWidget {
  Q_OBJECT

 public:
  explicit CompareView(QWidget* parent = nullptr);
  // trace may be null (a compile without a run).
  void setLeft(std::shared_ptr<const pef::Pef> pef, std::shared_ptr<const profile::CompactTrace> trace);
  void setRight(std::shared_ptr<const pef::Pef> pef, std::shared_ptr<const profile::CompactTrace> trace);
  // Another run (a trace file) for a side, keeping its PEF.
  void setTrace(int side, std::shared_ptr<const profile::CompactTrace> trace);
  QTableWidget* matchedTable() const { return m_table; }

  GraphView* graph(int side) const { return m_graphs[side]; }
  TimelineView* timeline(int side) const { return m_timelines[side]; }
  std::optional<CompareSummary> summary() const { return m_summary; }

 private:
  void setSide(int side, std::shared_ptr<const pef::Pef> pef, std::shared_ptr<const profile::CompactTrace> trace);
  void refreshSummary();
  void fillTable();
  QString matchingHypersection(int side, const QString& name) const;

  GraphView* m_graphs[2] = {nullptr, nullptr};
  TimelineView* m_timelines[2] = {nullptr, nullptr};
  QLabel* m_titles[2] = {nullptr, nullptr};
  QLabel* m_summaryLabel = nullptr;
  QTableWidget* m_table = nullptr;
  std::shared_ptr<const pef::Pef> m_pefs[2];
  std::shared_ptr<const profile::CompactTrace> m_traces[2];
  std::optional<CompareSummary> m_summary;
  bool m_syncing = false;
};

}  // namespace dfc::views
