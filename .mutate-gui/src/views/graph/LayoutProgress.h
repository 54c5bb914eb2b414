#pragma once
// Shown over the graph while a layout takes longer than half a second: what
// is laid out, how far it is, and a Cancel button (the picture so far stays).
#include <QFrame>

class QLabel;
class QProgressBar;
class QPushButton;

namespace dfc::views {

class LayoutProgress : public QFrame {
  Q_OBJECT

 public:
  explicit LayoutProgress(QWidget* parent);
  void setTitle(const QString& text);
  void setProgress(int done, int total);  // total 0: not known yet
  void showOver(const QRect& area);       // centred at the top of `area` (parent coordinates)
  QPushButton* cancelButton() const { return m_cancel; }

 signals:
  void cancelRequested();

 private:
  QLabel* m_title = nullptr;
  QProgressBar* m_bar = nullptr;
  QPushButton* m_cancel = nullptr;
};

}  // namespace dfc::views
