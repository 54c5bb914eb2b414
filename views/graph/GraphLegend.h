#pragma once
// Says which colour is what in a GraphView: one swatch per legend entry with
// its node count, refreshed whenever the view's colour mode or graph changes.
#include <QListWidget>

#include "graph/GraphStyle.h"

namespace dfc::views {

class GraphView;

class GraphLegend : public QListWidget {
  Q_OBJECT

 public:
  explicit GraphLegend(QWidget* parent = nullptr);
  void attach(GraphView* view);  // follows the view until it is destroyed
  void setEntries(const std::vector<LegendEntry>& entries);
};

}  // namespace dfc::views
