#pragma once
// The section calls of one step in schedule order, one box per call, its
// width the call's latency (measured mean if known, else estimated), coloured
// by role (schedule/RoleStyle.h). Custom painted: a step can have thousands
// of calls. Hover shows the call; click selects its section.
#include <QWidget>

#include "schedule/ScheduleData.h"
#include "style/ColorIdentity.h"

namespace dfc::views {

class GanttStrip : public QWidget {
  Q_OBJECT

 public:
  explicit GanttStrip(QWidget* parent = nullptr);
  void setData(const ScheduleData* data);  // not owned; must outlive the strip or be reset
  void setSelectedSection(int sectionId);
  static QColor typeColor(const QString& type);  // a role name's colour
  // With the document's colours, boxes take their hypersection's colour (as
  // in the graph and timeline) instead of their role's.
  void setColorIdentity(SharedColorIdentity identity);
  QColor boxColor(int sectionId) const;
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 signals:
  void sectionClicked(int sectionId);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  struct Box {
    double start = 0, length = 0;  // microseconds since step start
    int sectionId = 0;
  };
  int boxAt(double x) const;
  QRectF stripRect() const;

  const ScheduleData* m_data = nullptr;
  SharedColorIdentity m_identity;
  std::vector<Box> m_boxes;
  double m_totalUs = 0;
  int m_selected = -1;
};

}  // namespace dfc::views
