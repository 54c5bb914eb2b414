#pragma once
// The timeline with a find bar above it: type part of a slice name, see how
// many slices match, step through them in time order (Enter / Shift+Enter,
// or the arrows). Beside it, the colour legend (busiest keys first); a click
// on an entry finds its slices.
#include <QWidget>

class QLabel;
class QLineEdit;
class QToolButton;

namespace dfc::views {

class GraphLegend;
class LegendBox;
class TimelineView;

class TimelinePanel : public QWidget {
  Q_OBJECT

 public:
  explicit TimelinePanel(QWidget* parent = nullptr);

  TimelineView* view() const { return m_view; }
  QLineEdit* findBox() const { return m_find; }
  QLabel* matchLabel() const { return m_matches; }
  GraphLegend* legend() const;
  LegendBox* legendBox() const { return m_legend; }
  void focusFind();  // Ctrl+F on the timeline
  // A line above the timeline (the trace is of another PEF...); "" hides it.
  void setNotice(const QString& text);
  QLabel* notice() const { return m_notice; }

 private:
  void find();
  void step(bool forward);
  void showMatchCount();

  TimelineView* m_view = nullptr;
  QLineEdit* m_find = nullptr;
  QLabel* m_matches = nullptr;
  QToolButton* m_previous = nullptr;
  QToolButton* m_next = nullptr;
  LegendBox* m_legend = nullptr;
  QLabel* m_notice = nullptr;
};

}  // namespace dfc::views
