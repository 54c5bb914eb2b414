// GraphView's exports: the DOT source of what is shown (colours included, so
// `dot -Tsvg` gives the same picture), and SVG / PNG renderings of the scene.
#include <QBuffer>
#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>
#include <map>

#include "graph/GraphView.h"
#include "support/ExportFile.h"

namespace dfc::views {
namespace {

QString quoted(QString text) {
  text.replace(QLatin1Char('\\'), QStringLiteral("\\\\")).replace(QLatin1Char('"'), QStringLiteral("\\\""));
  text.replace(QLatin1Char('\n'), QStringLiteral("\\n"));
  return QLatin1Char('"') + text + QLatin1Char('"');
}

bool fail(QString* error, const QString& message) {
  if (error) *error = message;
  return false;
}

}  // namespace

QString GraphView::dotSource() const {
  QString out;
  out += QStringLiteral("digraph %1 {\n").arg(quoted(m_irGraph ? QString::fromStdString(m_irGraph->name) : QStringLiteral("dfc")));
  out += QStringLiteral("  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", fontsize=10];\n");
  std::map<QString, QStringList> clusters;
  QStringList topLevel;
  for (const GraphNode& node : m_data->nodes) {
    const QString line = QStringLiteral("n%1 [label=%2, fillcolor=\"%3\"%4];")
                             .arg(node.id)
                             .arg(quoted(node.label))
                             .arg(nodeColor(node, m_colorMode, colorIdentity(), m_overlay.get()).name())
                             .arg(node.kind == GraphNodeKind::Input  ? QStringLiteral(", shape=ellipse")
                                  : node.kind == GraphNodeKind::Stub ? QStringLiteral(", style=\"rounded,dashed\"")
                                                                     : QString());
    if (!node.hyperfunction.isEmpty() && node.kind != GraphNodeKind::Collapsed) {
      clusters[node.hyperfunction] << line;
    } else {
      topLevel << line;
    }
  }
  int index = 0;
  for (const auto& [scope, lines] : clusters) {
    out += QStringLiteral("  subgraph cluster_%1 {\n    label=%2;\n    style=dashed;\n").arg(index++).arg(quoted(scope));
    for (const QString& line : lines) out += QStringLiteral("    ") + line + QLatin1Char('\n');
    out += QStringLiteral("  }\n");
  }
  for (const QString& line : topLevel) out += QStringLiteral("  ") + line + QLatin1Char('\n');
  for (const GraphEdge& edge : m_data->edges) out += QStringLiteral("  n%1 -> n%2;\n").arg(edge.from).arg(edge.to);
  out += QStringLiteral("}\n");
  return out;
}

bool GraphView::exportDot(const QString& path, QString* error) const {
  return writeExportFile(path, dotSource().toUtf8(), error);
}

void GraphView::renderForExport(QPainter* painter, const QRectF& target, const QRectF& source) {
  m_plainStyles = !m_exportSelection;
  if (m_plainStyles) applyNodeStyles();
  m_canvas->setFullDetail(true);
  m_scene->render(painter, target, source);
  m_canvas->setFullDetail(false);
  if (m_plainStyles) {
    m_plainStyles = false;
    applyNodeStyles();
  }
}

// Both renderings draw the whole graph with every label, whatever the zoom on screen.
bool GraphView::exportSvg(const QString& path, QString* error) {
  if (!m_hasLayout) return fail(error, tr("The graph has no layout yet"));
  const QRectF source = m_layout->bounds.adjusted(-20, -20, 20, 20);
  QBuffer svg;  // rendered in memory, then written in one piece
  svg.open(QIODevice::WriteOnly);
  QSvgGenerator generator;
  generator.setOutputDevice(&svg);
  generator.setSize(source.size().toSize());
  generator.setViewBox(QRectF(QPointF(0, 0), source.size()));
  generator.setTitle(m_irGraph ? QString::fromStdString(m_irGraph->name) : QStringLiteral("graph"));
  QPainter painter;
  if (!painter.begin(&generator)) return fail(error, tr("Cannot write %1").arg(path));
  renderForExport(&painter, QRectF(QPointF(0, 0), source.size()), source);
  painter.end();
  if (svg.data().isEmpty()) return fail(error, tr("Cannot write %1").arg(path));
  return writeExportFile(path, svg.data(), error);
}

bool GraphView::exportPng(const QString& path, QString* error) {
  if (!m_hasLayout) return fail(error, tr("The graph has no layout yet"));
  const QRectF source = m_layout->bounds.adjusted(-20, -20, 20, 20);
  // 2x for sharp text, capped so a huge graph stays a loadable image.
  const double scale = std::min(2.0, 16000.0 / std::max(source.width(), source.height()));
  QImage image((source.size() * scale).toSize().expandedTo(QSize(1, 1)), QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    renderForExport(&painter, QRectF(QPointF(0, 0), image.size()), source);
  }
  QBuffer png;
  png.open(QIODevice::WriteOnly);
  if (!image.save(&png, "PNG")) return fail(error, tr("Cannot write %1").arg(path));
  return writeExportFile(path, png.data(), error);
}

}  // namespace dfc::views
