#pragma once
// What the timeline reports about a selected slice: a copy in Qt types, so
// receivers need not keep the trace alive.
#include <QList>
#include <QMetaType>
#include <QPair>
#include <QString>

#include "style/Units.h"
#include <cstdint>

namespace dfc::views {

struct SliceInfo {
  int row = -1;
  qsizetype index = -1;        // within the row
  QString name;
  QString category;
  QString rowName;
  int64_t pid = 0;
  int64_t tid = 0;
  double startUs = 0;          // as in the trace
  double durationUs = 0;
  QList<QPair<QString, QString>> args;  // in the trace's order
  // From the trace index, for any trace: the time the slice is the innermost
  // one running, the slice it nests in, and the ones nested directly in it.
  double selfUs = 0;
  bool hasParent = false;
  QString parentName;
  double parentStartUs = 0;
  double parentDurationUs = 0;
  qsizetype childCount = 0;
  QList<QPair<QString, double>> children;  // name, duration: the first few, in start order
  bool mirror = false;                     // a copy of a call on the whole-model row, counted there
  // A section call of our traces: the section's figures from the trace's
  // `sections` table (written once per section, not per call).
  QList<QPair<QString, QString>> sectionFigures;

  bool isValid() const { return row >= 0; }
  QString arg(const QString& key) const;  // "" if absent
};

// The details pane's table for a slice: row, category, start (from
// `traceStartUs`), duration, self time, parent, children, args, and a
// section call's figures.
QString sliceDetailsHtml(const SliceInfo& slice, double traceStartUs);

}  // namespace dfc::views

Q_DECLARE_METATYPE(dfc::views::SliceInfo)
