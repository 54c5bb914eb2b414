#pragma once
// The side-by-side screen: choose a PEF for each side (its newest run's trace
// comes along; another run's trace can be opened for either side); views::CompareView shows graphs and timelines in
// step and a summary of the differences. Files load on worker threads.
#include <QWidget>

#include "support/DocumentLoaders.h"

class QLabel;
class QPushButton;

namespace dfc::views {
class CompareView;
class LatestJob;
}  // namespace dfc::views

namespace dfc::views {

class ComparePanel : public QWidget {
  Q_OBJECT

 public:
  ComparePanel(DocumentLoaders loaders, QString dbPath, QWidget* parent = nullptr);

  void loadSide(int side, const QString& pefPath);     // 0 = left, 1 = right
  void loadTrace(int side, const QString& tracePath);  // another run for that side's PEF
  void setCurrentPef(const QString& pefPath);          // what "Use open PEF" takes
  views::CompareView* compareView() const { return m_view; }
  bool isBusy() const;

 signals:
  void sideLoaded(int side);
  void loadFailed(const QString& message);

 private:
  DocumentLoaders m_loaders;
  QString m_dbPath;
  QString m_currentPef;
  views::CompareView* m_view = nullptr;
  QLabel* m_status = nullptr;
  QPushButton* m_useOpen[2] = {nullptr, nullptr};
  views::LatestJob* m_sideJob[2] = {nullptr, nullptr};
};

}  // namespace dfc::views
