#pragma once
// What the timeline reports about a selected slice: a copy in Qt types, so
// receivers need not keep the trace alive.
#include <QList>
#include <QMetaType>
#include <QPair>
#include <QString>
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

  bool isValid() const { return row >= 0; }
  QString arg(const QString& key) const;  // "" if absent
};

// "12.5 us", "3.20 ms", "1.500 s"
QString formatDuration(double us);

}  // namespace dfc::views

Q_DECLARE_METATYPE(dfc::views::SliceInfo)
