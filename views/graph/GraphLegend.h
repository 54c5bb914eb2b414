#pragma once
// Says which colour is what in a GraphView: one swatch per legend entry,
// named ("hs8_h.1 · 36 calls"), refreshed whenever the view's colour mode or
// graph changes. Long lists scroll, long names scroll sideways (never cut).
// Clicking an entry selects its nodes in the view and emits keyClicked.
#include <QListWidget>

#include "graph/GraphStyle.h"

class QSplitter;

namespace dfc::views {

class GraphView;

class GraphLegend : public QListWidget {
  Q_OBJECT

 public:
  explicit GraphLegend(QWidget* parent = nullptr);
  void attach(GraphView* view);  // follows the view until it is destroyed
  void setEntries(const std::vector<LegendEntry>& entries);
  QSize sizeHint() const override;  // wide enough for the longest entry
  // Gives the legend (the last widget of `split`) the width its names need,
  // up to a third of the splitter.
  void fitInto(QSplitter* split) const;

 signals:
  void keyClicked(const QString& key);
};

}  // namespace dfc::views
