#pragma once
// Two compiles or runs side by side (-o1 vs -o3, before and after decisions,
// sn30 vs sn40l). Left: the summary (per step) above the table of section
// groups matched by provenance (SectionGroups.h: the sections of each side
// that hold the same operators), each with estimated and measured time per
// step on both sides and the change; the table takes the pane's height.
// Right, in tabs: the graph diff (the right compile's graph, each operator
// coloured by how its section changed: merged, split, moved, unchanged, only
// here) and the two graphs with their timelines side by side (timeline
// zoom/pan and graph zoom kept in step, one palette). A click on a row, or on
// a node of any graph, selects that group everywhere.
#include <QWidget>
#include <memory>
#include <optional>

#include "compare/CompareSummary.h"
#include "compare/SectionGroups.h"

class QLabel;
class QTabWidget;
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
  QTabWidget* viewTabs() const { return m_tabs; }
  void showDiff();         // the graph diff tab
  void showSideBySide();   // the two graphs and timelines

  GraphView* graph(int side) const { return m_graphs[side]; }
  GraphView* diffGraph() const { return m_diff; }
  TimelineView* timeline(int side) const { return m_timelines[side]; }
  std::optional<CompareSummary> summary() const { return m_summary; }
  const std::optional<SectionMatch>& match() const { return m_match; }
  // Selects a group (index into match()->groups): its table row, and its
  // sections' nodes in both graphs and the diff; -1 clears.
  void selectGroup(int group);
  int selectedGroup() const { return m_selectedGroup; }
  // A graph of either side or the diff is still being laid out.
  bool isLayoutPending() const;

 signals:
  void groupSelected(int group);
  void layoutDone();  // a graph of either side or the diff has shown its layout (or failed to)

 private:
  QWidget* buildSideBySide();
  QWidget* buildDiff();
  void connectSync(int side);
  void setSide(int side, std::shared_ptr<const pef::Pef> pef, std::shared_ptr<const profile::CompactTrace> trace);
  void refreshSummary();
  void refreshDiff();
  void fillTable();
  // The group of the node at `index` of `view` (showing `side`'s graph), -1 if none.
  int groupOfNode(const GraphView* view, int side, int index) const;

  GraphView* m_graphs[2] = {nullptr, nullptr};
  GraphView* m_diff = nullptr;
  TimelineView* m_timelines[2] = {nullptr, nullptr};
  QLabel* m_titles[2] = {nullptr, nullptr};
  QLabel* m_diffTitle = nullptr;
  QLabel* m_summaryLabel = nullptr;
  QTableWidget* m_table = nullptr;
  QTabWidget* m_tabs = nullptr;
  std::shared_ptr<const pef::Pef> m_pefs[2];
  std::shared_ptr<const profile::CompactTrace> m_traces[2];
  std::shared_ptr<const pef::Pef> m_diffPef;  // the graph the diff shows
  std::optional<CompareSummary> m_summary;
  std::optional<SectionMatch> m_match;
  int m_selectedGroup = -1;
  bool m_syncing = false;
};

// The colour of each kind of change in the graph diff and the table.
QColor sectionChangeColor(SectionChange change);

}  // namespace dfc::views
