#include "NodeDetailsHtml.h"

#include <QLocale>
#include <QStringList>
#include <set>

#include "MainWindow.h"
#include "graph/GraphData.h"
#include "graph/GraphDetails.h"
#include "schedule/ScheduleData.h"
#include "style/Units.h"

namespace dfc::studio {

QString nodeDetailsHtml(const views::NodeDetails& node, const views::GraphData& graph, const views::ScheduleData& schedule) {
  QString html = QStringLiteral("<h3>%1</h3><table>").arg(node.name.toHtmlEscaped());
  auto row = [&html](const QString& key, const QString& value) {
    html += QStringLiteral("<tr><td valign=\"top\"><b>%1</b>&nbsp;&nbsp;</td><td>%2</td></tr>")
                .arg(key.toHtmlEscaped(), value.toHtmlEscaped());
  };
  row(MainWindow::tr("op"), node.opCount > 1 ? MainWindow::tr("%1 (%2 ops folded into it)").arg(node.op).arg(node.opCount) : node.op);
  const views::GraphNode* shown = node.index >= 0 && static_cast<size_t>(node.index) < graph.nodes.size()
                                      ? &graph.nodes[static_cast<size_t>(node.index)]
                                      : nullptr;
  if (shown && shown->kind == views::GraphNodeKind::Collapsed) {
    // A folded node tells what is inside: ops per role, its sections and hypersections.
    QStringList roles, hypersections;
    for (const auto& [role, ops] : shown->roleOps) roles << MainWindow::tr("%1 %2").arg(ops).arg(views::roleDisplayName(role));
    for (const auto& [name, ops] : shown->hypersectionOps) hypersections << MainWindow::tr("%1 (%n op(s))", nullptr, ops).arg(name);
    row(MainWindow::tr("roles"), roles.join(QStringLiteral(", ")));
    row(MainWindow::tr("sections"), MainWindow::tr("%n section(s)", nullptr, static_cast<int>(shown->sections.size())));
    row(MainWindow::tr("hypersections"), hypersections.join(QStringLiteral("\n")));
  } else if (!node.role.isEmpty()) {
    row(MainWindow::tr("role"), views::roleDisplayName(node.role));
  }
  if (!node.hyperfunction.isEmpty()) row(MainWindow::tr("hyperfunction"), node.hyperfunction);
  for (const auto& [key, value] : node.attributes) row(key, value);
  if (!node.inputShapes.isEmpty()) row(MainWindow::tr("inputs"), node.inputShapes.join(QStringLiteral("\n")));
  if (!node.outputShapes.isEmpty()) row(MainWindow::tr("outputs"), node.outputShapes.join(QStringLiteral("\n")));
  if (!shown || shown->kind != views::GraphNodeKind::Collapsed) row(MainWindow::tr("section"), node.section < 0 ? MainWindow::tr("none")
                     : node.sectionName.isEmpty() ? QString::number(node.section)
                                                  : QStringLiteral("%1 (%2)").arg(node.section).arg(node.sectionName));
  if (!shown || shown->kind != views::GraphNodeKind::Collapsed) row(MainWindow::tr("hypersection"), node.hypersection < 0 ? MainWindow::tr("none")
                          : node.hypersectionName.isEmpty()
                              ? QString::number(node.hypersection)
                              : QStringLiteral("%1 (%2)").arg(node.hypersection).arg(node.hypersectionName));
  // Estimate against measurement for the node's section (the latest recorded run).
  if (const views::ScheduleSection* s = schedule.section(node.section); s && node.opCount <= 1) {
    row(MainWindow::tr("est. latency per call"), views::formatDuration(s->estLatencyUs));
    row(MainWindow::tr("measured mean per call"), s->measuredMeanUs ? MainWindow::tr("%1 over %n call(s)", nullptr, static_cast<int>(s->calls))
                                                             .arg(views::formatDuration(*s->measuredMeanUs))
                                                       : MainWindow::tr("not run"));
    if (s->measuredMeanUs && s->estLatencyUs > 0)
      row(MainWindow::tr("measured / estimated"), QStringLiteral("×%1").arg(QLocale().toString(*s->measuredMeanUs / s->estLatencyUs, 'g', 3)));
  }
  if (node.hasEstimate) {
    row(MainWindow::tr("est. PCUs"), QString::number(node.pcus));
    row(MainWindow::tr("est. PMUs"), QString::number(node.pmus));
    row(MainWindow::tr("est. latency"), views::formatDuration(node.latencyUs));
    if (node.flop > 0) row(MainWindow::tr("work per call"), views::formatFlop(node.flop));
  } else {
    row(MainWindow::tr("estimate"), MainWindow::tr("none (not in a section)"));
  }
  // Kernels the host runs fused in its section(s): FlashAttention-style attention, with its tiles.
  QStringList fused;
  const bool folded = shown && shown->kind == views::GraphNodeKind::Collapsed;
  for (int id : folded ? shown->sections : std::set<int>{node.section})
    if (const views::ScheduleSection* s = schedule.section(id)) fused << s->fusedKernels;
  if (!fused.isEmpty()) row(MainWindow::tr("runs fused"), fused.join(QStringLiteral("\n")));
  html += QStringLiteral("</table>");
  // Multi-line cells (shapes) keep their line breaks.
  html.replace(QStringLiteral("\n"), QStringLiteral("<br>"));
  return html;
}

}  // namespace dfc::studio
