#pragma once
// What the details pane shows for a clicked node: a plain copy in Qt types.
#include <QList>
#include <QMetaType>
#include <QPair>
#include <QString>
#include <QStringList>

#include "graph/GraphData.h"

namespace dfc::views {

struct NodeDetails {
  int index = -1;                 // GraphData node
  QString name;
  QString op;                     // "hyperfunction" for a collapsed node
  QString role;
  QString hyperfunction;
  QList<QPair<QString, QString>> attributes;
  QStringList inputShapes;        // "x: f32[64,1,28,28]"
  QStringList outputShapes;
  int section = -1;
  QString sectionName;
  int hypersection = -1;
  QString hypersectionName;
  int opCount = 1;
  bool hasEstimate = false;       // the plan had a section for it
  int pcus = 0;                   // the section's estimate (summed over sections for a collapsed node)
  int pmus = 0;
  double latencyUs = 0;
  double flop = 0;
  bool isValid() const { return index >= 0; }
};

// graph/plan may be null (then only what GraphData knows is filled in).
NodeDetails describeNode(const GraphData& data, int index, const ir::Graph* graph, const partition::Plan* plan);

}  // namespace dfc::views

Q_DECLARE_METATYPE(dfc::views::NodeDetails)
