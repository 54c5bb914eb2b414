#include "graph/LayoutProgress.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

namespace dfc::views {

LayoutProgress::LayoutProgress(QWidget* parent) : QFrame(parent) {
  setFrameShape(QFrame::StyledPanel);
  setAutoFillBackground(true);
  m_title = new QLabel(this);
  m_bar = new QProgressBar(this);
  m_bar->setMinimumWidth(160);
  m_bar->setFormat(tr("%v of %m groups"));
  m_cancel = new QPushButton(tr("Cancel"), this);
  m_cancel->setToolTip(tr("Stop laying out; the graph shown stays as it is"));
  connect(m_cancel, &QPushButton::clicked, this, &LayoutProgress::cancelRequested);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(8, 4, 8, 4);
  layout->addWidget(m_title);
  layout->addWidget(m_bar);
  layout->addWidget(m_cancel);
  hide();
}

void LayoutProgress::setTitle(const QString& text) { m_title->setText(text); }

void LayoutProgress::setProgress(int done, int total) {
  m_bar->setRange(0, total);  // 0..0: busy, no figure yet
  m_bar->setValue(done);
}

void LayoutProgress::showOver(const QRect& area) {
  adjustSize();
  move(area.left() + (area.width() - width()) / 2, area.top() + 8);
  show();
  raise();
}

}  // namespace dfc::views
