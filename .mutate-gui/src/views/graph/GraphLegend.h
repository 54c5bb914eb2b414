#pragma once
// Says which colour is what: one swatch per legend entry, named
// ("hs8_h.1 · 36 calls"), refreshed whenever the view's colour mode or graph
// changes. A long name is elided in the middle (the ends tell names apart:
// "hs34_conv2d…grad_input"), its full text in the tooltip. Clicking an entry
// emits keyClicked (a GraphView it is attached to selects those nodes).
// LegendBox puts a line above it saying how the colours were chosen.
#include <QListWidget>

#include "graph/GraphStyle.h"

class QLabel;
class QSplitter;

namespace dfc::views {

class GraphView;

class GraphLegend : public QListWidget {
  Q_OBJECT

 public:
  static constexpr int kMaxWidth = 280;  // wider names are elided in the middle

  explicit GraphLegend(QWidget* parent = nullptr);
  void attach(GraphView* view);  // follows the view until it is destroyed
  void setEntries(const std::vector<LegendEntry>& entries);
  QSize sizeHint() const override;  // wide enough for the longest entry, up to kMaxWidth
  static constexpr int kFullTextRole = Qt::UserRole + 1;  // an entry's whole label

 signals:
  void keyClicked(const QString& key);

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  // Each entry as wide as the list: the name ("hs34_conv2d_grad_input", before
  // the first " · ") elided in its middle, its figures after it kept whole.
  void fitTexts();
};

// A legend with a note above it ("Colour by cost: the 24 costliest ...").
class LegendBox : public QWidget {
  Q_OBJECT

 public:
  explicit LegendBox(QWidget* parent = nullptr);
  GraphLegend* list() const { return m_list; }
  QLabel* note() const { return m_note; }
  void setNote(const QString& text);  // "" hides it
  // Gives the box (the last widget of `split`) the width its names need, up
  // to a third of the splitter.
  void fitInto(QSplitter* split) const;

 private:
  GraphLegend* m_list = nullptr;
  QLabel* m_note = nullptr;
};

}  // namespace dfc::views
