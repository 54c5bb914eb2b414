#include "ComparePanel.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "compare/CompareView.h"
#include "support/LatestJob.h"

namespace dfc::views {
namespace {

struct SideLoad {
  QString error;
  std::shared_ptr<const pef::Pef> pef;
  std::shared_ptr<const profile::CompactTrace> trace;
  QString tracePath;
};

// Reads load.tracePath into load.trace; returns why not ("" when read).
QString readSideTrace(const DocumentLoaders& loaders, SideLoad& load) {
  if (loaders.readCompactTrace) {
    auto trace = loaders.readCompactTrace(load.tracePath.toStdString());
    if (!trace) return QString::fromStdString(trace.error().message());
    load.trace = std::make_shared<const profile::CompactTrace>(std::move(trace.value()));
  } else if (loaders.readTrace) {
    auto trace = loaders.readTrace(load.tracePath.toStdString());
    if (!trace) return QString::fromStdString(trace.error().message());
    load.trace = std::make_shared<const profile::CompactTrace>(profile::compactTrace(*trace));
  }
  return {};
}

SideLoad readSide(const DocumentLoaders& loaders, const QString& pefPath, const QString& dbPath) {
  SideLoad load;
  if (!loaders.readPef) {
    load.error = ComparePanel::tr("Reading PEF files is not available in this build");
    return load;
  }
  auto pef = loaders.readPef(pefPath.toStdString());
  if (!pef) {
    load.error = QString::fromStdString(pef.error().message());
    return load;
  }
  load.pef = std::make_shared<const pef::Pef>(std::move(pef.value()));
  load.tracePath = findTraceForPef(loaders, pefPath, dbPath);
  if (load.tracePath.isEmpty()) return load;
  readSideTrace(loaders, load);  // an unreadable run leaves the side as estimates only
  return load;
}

}  // namespace

ComparePanel::ComparePanel(DocumentLoaders loaders, QString dbPath, QWidget* parent)
    : QWidget(parent), m_loaders(std::move(loaders)), m_dbPath(std::move(dbPath)) {
  m_view = new views::CompareView(this);
  m_status =
      new QLabel(tr("Choose a PEF for each side, e.g. the same model at -o0 and -o3, or on sn30 and sn40l."), this);
  auto* bar = new QHBoxLayout;
  const QString sideNames[2] = {tr("Left"), tr("Right")};
  for (int side = 0; side < 2; ++side) {
    m_sideJob[side] = new views::LatestJob(this);
    auto* open = new QPushButton(tr("%1: open PEF...").arg(sideNames[side]), this);
    m_useOpen[side] = new QPushButton(tr("%1: use the open PEF").arg(sideNames[side]), this);
    m_useOpen[side]->setEnabled(false);
    connect(open, &QPushButton::clicked, this, [this, side] {
      const QString path =
          QFileDialog::getOpenFileName(this, tr("Open PEF"), {}, tr("PEF files (*.pef);;All files (*)"));
      if (!path.isEmpty()) loadSide(side, path);
    });
    connect(m_useOpen[side], &QPushButton::clicked, this, [this, side] { loadSide(side, m_currentPef); });
    auto* openTrace = new QPushButton(tr("%1: open trace...").arg(sideNames[side]), this);
    openTrace->setToolTip(tr("Another run of this side's PEF (a chrome trace JSON)"));
    connect(openTrace, &QPushButton::clicked, this, [this, side] {
      const QString path = QFileDialog::getOpenFileName(this, tr("Open Trace"), {},
                                                        tr("Chrome traces (*.json *.json.gz);;All files (*)"));
      if (!path.isEmpty()) loadTrace(side, path);
    });
    bar->addWidget(open);
    bar->addWidget(m_useOpen[side]);
    bar->addWidget(openTrace);
    if (side == 0) bar->addStretch(1);
  }
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(bar);
  layout->addWidget(m_status);
  layout->addWidget(m_view, 1);
}

void ComparePanel::setCurrentPef(const QString& pefPath) {
  m_currentPef = pefPath;
  for (auto* button : m_useOpen) button->setEnabled(!pefPath.isEmpty());
}

void ComparePanel::loadTrace(int side, const QString& tracePath) {
  if (side < 0 || side > 1 || tracePath.isEmpty()) return;
  m_status->setText(tr("Loading %1...").arg(QFileInfo(tracePath).fileName()));
  m_sideJob[side]->start(
      [loaders = m_loaders, tracePath](const views::JobContext&) {
        SideLoad load;
        load.tracePath = tracePath;
        load.error = readSideTrace(loaders, load);
        return load;
      },
      [this, side, tracePath](const SideLoad& load) {
        if (!load.error.isEmpty()) {
          m_status->setText(load.error);
          emit loadFailed(load.error);
          return;
        }
        m_view->setTrace(side, load.trace);
        m_status->setText(tr("%1 opened").arg(QFileInfo(tracePath).fileName()));
        emit sideLoaded(side);
      });
}

bool ComparePanel::isBusy() const {
  return m_sideJob[0]->isBusy() || m_sideJob[1]->isBusy() || m_view->isLayoutPending();
}

void ComparePanel::loadSide(int side, const QString& pefPath) {
  if (side < 0 || side > 1 || pefPath.isEmpty()) return;
  m_status->setText(tr("Loading %1...").arg(QFileInfo(pefPath).fileName()));
  m_sideJob[side]->start(
      [loaders = m_loaders, pefPath, dbPath = m_dbPath](const views::JobContext&) {
        return readSide(loaders, pefPath, dbPath);
      },
      [this, side, pefPath](const SideLoad& load) {
        if (!load.error.isEmpty()) {
          m_status->setText(load.error);
          emit loadFailed(load.error);
          return;
        }
        if (side == 0)
          m_view->setLeft(load.pef, load.trace);
        else
          m_view->setRight(load.pef, load.trace);
        m_status->setText(
            load.trace
                ? tr("%1 with its run %2").arg(QFileInfo(pefPath).fileName(), QFileInfo(load.tracePath).fileName())
                : tr("%1 (no run found: estimates only)").arg(QFileInfo(pefPath).fileName()));
        emit sideLoaded(side);
      });
}

}  // namespace dfc::views
