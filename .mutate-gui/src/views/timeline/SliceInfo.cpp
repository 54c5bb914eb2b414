#include "timeline/SliceInfo.h"

#include <QCoreApplication>
#include <QLocale>
#include <cmath>

namespace dfc::views {

QString SliceInfo::arg(const QString& key) const {
  for (const auto& [name, value] : args) {
    if (name == key) return value;
  }
  return {};
}

namespace {

QString tr(const char* text) { return QCoreApplication::translate("SliceInfo", text); }

}  // namespace

// Three columns side by side, so a short pane shows them all: the slice
// (where, how long, its relatives), its args, and a section call's figures.
QString sliceDetailsHtml(const SliceInfo& slice, double traceStartUs) {
  auto row = [](QString& html, const QString& key, const QString& value) {
    html += QStringLiteral("<tr><td valign=\"top\"><b>%1</b>&nbsp;&nbsp;</td><td>%2</td></tr>")
                .arg(key.toHtmlEscaped(), value.toHtmlEscaped());
  };
  QString where = QStringLiteral("<table>");
  row(where, tr("row"), slice.rowName);
  if (!slice.category.isEmpty()) row(where, tr("category"), slice.category);
  if (slice.mirror) row(where, tr("mirror"), tr("a copy of the call on the whole-model row; counted there, once"));
  row(where, tr("start"), formatDuration(slice.startUs - traceStartUs));
  row(where, tr("duration"), formatDuration(slice.durationUs));
  row(where, tr("self time"), formatDuration(slice.selfUs));
  row(where, tr("parent"), slice.hasParent ? QStringLiteral("%1 (%2 at %3)")
                                                 .arg(slice.parentName, formatDuration(slice.parentDurationUs),
                                                      formatDuration(slice.parentStartUs - traceStartUs))
                                           : tr("none (top level)"));
  QStringList children;
  for (const auto& [name, us] : slice.children) children << QStringLiteral("%1 (%2)").arg(name, formatDuration(us));
  if (slice.childCount > slice.children.size()) children << tr("... %1 more").arg(slice.childCount - slice.children.size());
  row(where, tr("children"), slice.childCount == 0 ? tr("none")
                                                   : QStringLiteral("%1: %2").arg(slice.childCount).arg(children.join(QStringLiteral(", "))));
  where += QStringLiteral("</table>");
  auto column = [&row](const QString& title, const QList<QPair<QString, QString>>& pairs) {
    if (pairs.isEmpty()) return QString();
    QString html = QStringLiteral("<td width=\"24\"></td><td valign=\"top\"><i>%1</i><table>").arg(title.toHtmlEscaped());
    for (const auto& [key, value] : pairs) row(html, key, value);
    return html + QStringLiteral("</table></td>");
  };
  // A section's dozen figures in two columns: a short pane shows them all.
  const qsizetype half = (slice.sectionFigures.size() + 1) / 2;
  const QString section = slice.sectionFigures.size() <= 8
                              ? column(tr("its section (the trace's sections table)"), slice.sectionFigures)
                              : column(tr("its section (the trace's sections table)"), slice.sectionFigures.mid(0, half)) +
                                    column(QStringLiteral(" "), slice.sectionFigures.mid(half));
  return QStringLiteral("<h3>%1</h3><table><tr><td valign=\"top\">%2</td>%3%4</tr></table>")
      .arg(slice.name.toHtmlEscaped(), where, column(tr("args of this call"), slice.args), section);
}

}  // namespace dfc::views
