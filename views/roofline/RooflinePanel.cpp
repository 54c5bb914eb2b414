#include "roofline/RooflinePanel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QToolButton>
#include <QVBoxLayout>

#include "roofline/RooflineChart.h"
#include "support/ExportButton.h"
#include "support/ExportFile.h"
#include "support/PictureExport.h"

namespace dfc::views {

RooflinePanel::RooflinePanel(QWidget* parent) : QWidget(parent) {
  m_summary = new QLabel(this);
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_chart = new RooflineChart(this);
  auto* top = new QHBoxLayout;
  top->addWidget(m_summary, 1);
  top->addWidget(makeExportButton());
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addWidget(m_chart, 1);
  connect(m_chart, &RooflineChart::sectionClicked, this, &RooflinePanel::sectionClicked);
  clear();
}

QToolButton* RooflinePanel::makeExportButton() {
  auto csv = [this](const QString& path, QString* error) { return exportCsv(path, error); };
  auto picture = [this](const QString& path, QString* error) { return exportPicture(path, error); };
  return views::makeExportButton(
      this, tr("Export roofline"),
      {{tr("Points (CSV)..."), QStringLiteral("roofline.csv"), tr("CSV (*.csv)"), csv},
       {tr("Chart (PNG)..."), QStringLiteral("roofline.png"), tr("PNG image (*.png)"), picture},
       {tr("Chart (SVG)..."), QStringLiteral("roofline.svg"), tr("SVG image (*.svg)"), picture}});
}

void RooflinePanel::setData(RooflineViewData data) {
  m_data = std::move(data);
  m_chart->setData(&m_data);
  updateSummary();
}

void RooflinePanel::setSelectedSection(int section) { m_chart->setSelectedSection(section); }

void RooflinePanel::updateSummary() {
  if (m_data.empty()) {
    m_summary->setText(m_data.error.isEmpty() ? tr("No PEF loaded. Compile a model or open a PEF (Ctrl+O).")
                                              : tr("No roofline: %1").arg(m_data.error));
    return;
  }
  int unplotted = 0;
  for (const auto& p : m_data.roofline.points) unplotted += p.intensity <= 0 || p.estimatedTflops <= 0;
  QString text =
      tr("%1 on %2: %n section(s); ridge at %3 FLOP/byte.", nullptr, static_cast<int>(m_data.roofline.points.size()))
          .arg(m_data.title, m_data.arch, QLocale().toString(m_data.roofline.ridgeIntensity, 'g', 4));
  if (unplotted > 0)
    text += QLatin1Char(' ') +
            tr("%n section(s) without FLOP or off-chip bytes are left off the log axes.", nullptr, unplotted);
  if (m_data.host)
    text += QLatin1Char(' ') +
            tr("Host (measured once, %1 threads): GEMM %2 GFLOP/s, triad %3 GB/s; %n section(s) measured.", nullptr,
               static_cast<int>(m_data.hostPoints.size()))
                .arg(m_data.host->threads)
                .arg(QLocale().toString(m_data.host->gflops, 'f', 1), QLocale().toString(m_data.host->gbps, 'f', 1));
  m_summary->setText(text + QLatin1Char(' ') + tr("Click a point to select its section."));
}

bool RooflinePanel::exportCsv(const QString& path, QString* error) const {
  return writeExportFile(path, rooflineViewCsv(m_data).toUtf8(), error);
}

bool RooflinePanel::exportPicture(const QString& path, QString* error) const {
  const QSize size = m_chart->width() > 100 ? m_chart->size() : QSize(1200, 600);
  return views::exportPicture(
      path, size, [this](QPainter& p, const QRectF& area) { m_chart->paintChart(p, area); }, error);
}

}  // namespace dfc::views
