#pragma once
// The Runs screen's table of where a `dfc measure-performance --op-profile`
// run spent its host time: one row per kernel (an op, or what fusion made of
// a group), largest first, with its op family, ms per step, share of the mean
// step and calls per step. With no such run selected it says how to get one.
#include <QWidget>
#include <vector>

#include "driver/run/MeasurePerformance.h"

class QLabel;
class QTableWidget;

namespace dfc::views {

class OpProfileTable : public QWidget {
  Q_OBJECT

 public:
  enum Column { Kernel, Family, MsPerStep, ShareOfStep, CallsPerStep, ColumnCount };

  explicit OpProfileTable(QWidget* parent = nullptr);
  // `run`: what the caption names; `meanStepMs` <= 0: the share column stays empty.
  void setProfile(const QString& run, const std::vector<driver::OpTime>& ops, double meanStepMs);
  // No profile to show: the hint (a run without --op-profile, or no performance run selected).
  void showHint(const QString& hint);

  QTableWidget* table() const { return m_table; }
  QLabel* caption() const { return m_caption; }

 private:
  QLabel* m_caption = nullptr;
  QTableWidget* m_table = nullptr;
};

}  // namespace dfc::views
