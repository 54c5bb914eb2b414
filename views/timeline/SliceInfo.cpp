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

// Decimal separator by locale ("1,500 s" in German), as in every form.
QString formatDuration(double us) {
  const double magnitude = std::abs(us);
  const QLocale locale;
  if (magnitude >= 1e6) return QStringLiteral("%1 s").arg(locale.toString(us / 1e6, 'f', 3));
  if (magnitude >= 1e3) return QStringLiteral("%1 ms").arg(locale.toString(us / 1e3, 'f', 2));
  return QStringLiteral("%1 us").arg(locale.toString(us, 'f', magnitude >= 100 ? 0 : (magnitude >= 1 ? 1 : 3)));
}

namespace {

QString tr(const char* text) { return QCoreApplication::translate("SliceInfo", text); }

}  // namespace

QString sliceDetailsHtml(const SliceInfo& slice, double traceStartUs) {
  QString html = QStringLiteral("<h3>%1</h3><table>").arg(slice.name.toHtmlEscaped());
  auto row = [&html](const QString& key, const QString& value) {
    html += QStringLiteral("<tr><td valign=\"top\"><b>%1</b>&nbsp;&nbsp;</td><td>%2</td></tr>")
                .arg(key.toHtmlEscaped(), value.toHtmlEscaped());
  };
  row(tr("row"), slice.rowName);
  if (!slice.category.isEmpty()) row(tr("category"), slice.category);
  if (slice.mirror) row(tr("mirror"), tr("a copy of the call on the whole-model row; counted there, once"));
  row(tr("start"), formatDuration(slice.startUs - traceStartUs));
  row(tr("duration"), formatDuration(slice.durationUs));
  row(tr("self time"), formatDuration(slice.selfUs));
  row(tr("parent"), slice.hasParent ? QStringLiteral("%1 (%2 at %3)")
                                          .arg(slice.parentName, formatDuration(slice.parentDurationUs),
                                               formatDuration(slice.parentStartUs - traceStartUs))
                                    : tr("none (top level)"));
  QStringList children;
  for (const auto& [name, us] : slice.children) children << QStringLiteral("%1 (%2)").arg(name, formatDuration(us));
  if (slice.childCount > slice.children.size())
    children << tr("... %1 more").arg(slice.childCount - slice.children.size());
  row(tr("children"), slice.childCount == 0 ? tr("none") : QStringLiteral("%1: %2").arg(slice.childCount).arg(children.join(QStringLiteral(", "))));
  for (const auto& [key, value] : slice.args) row(key, value);
  if (!slice.sectionFigures.isEmpty()) {
    html += QStringLiteral("<tr><td colspan=\"2\"><i>%1</i></td></tr>").arg(tr("the section (once per section in the trace)").toHtmlEscaped());
    for (const auto& [key, value] : slice.sectionFigures) row(key, value);
  }
  return html + QStringLiteral("</table>");
}

}  // namespace dfc::views
