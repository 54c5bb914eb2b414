#pragma once
// The placed chip of one section (analysis/ChipModel.h), painted to fit the
// widget: tiles, units coloured by the op they hold, the routed links
// coloured by load against capacity (over capacity red), or the step's heat
// map (cells by the calls that keep them busy). Hover shows a unit's or a
// link's figures. Custom painted: a 7B model's section fills whole chips.
#include <QWidget>

#include "analysis/ChipModel.h"

namespace dfc::views {

class ChipCanvas : public QWidget {
  Q_OBJECT

 public:
  explicit ChipCanvas(QWidget* parent = nullptr);
  void setModel(analysis::ChipModel model);
  const analysis::ChipModel& model() const { return m_model; }
  // Paints the model into a `size` area (the widget, or an exported image).
  void paint(QPainter& painter, QSize size) const;
  // Where a cell and a link lie when painted into `size`.
  QRectF cellRect(int row, int col, QSize size) const;
  QLineF linkLine(const analysis::ChipLink& link, QSize size) const;
  QString toolTipAt(QPointF pos) const;  // "" over nothing
  QSize sizeHint() const override { return {640, 480}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;

 private:
  double cellSize(QSize size) const;
  void paintTiles(QPainter& painter, QSize size, bool borders) const;
  void paintUnits(QPainter& painter, QSize size) const;
  void paintHeat(QPainter& painter, QSize size) const;
  void paintLinks(QPainter& painter, QSize size) const;
  QString unitTip(const analysis::ChipUnit& unit) const;
  QString linkTip(const analysis::ChipLink& link) const;

  analysis::ChipModel m_model;
  std::vector<int> m_unitAt;  // per cell: index in m_model.units, or -1
  std::map<std::string, std::string> m_opColours;
};

}  // namespace dfc::views
