#include "chip/ChipPanel.h"

#include <QBuffer>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QMessageBox>
#include <QPainter>
#include <QPushButton>
#include <QSvgGenerator>
#include <QVBoxLayout>
#include <algorithm>

#include "chip/ChipCanvas.h"
#include "support/ExportFile.h"

namespace dfc::views {

namespace {

const QString kStep = QStringLiteral("step");

bool fail(QString* error, const QString& message) {
  if (error) *error = message;
  return false;
}

// The section whose bitfile holds the most units: the one most worth a first look.
int busiestSection(const pef::Pef& pef) {
  int best = -1;
  size_t most = 0;
  for (const auto& b : pef.bitfiles)
    if (b.units.size() > most && static_cast<size_t>(b.hypersection) < pef.plan.hypersections.size() &&
        !pef.plan.hypersections[static_cast<size_t>(b.hypersection)].sections.empty()) {
      most = b.units.size();
      best = pef.plan.hypersections[static_cast<size_t>(b.hypersection)].sections.front();
    }
  return best;
}

}  // namespace

ChipPanel::ChipPanel(QWidget* parent) : QWidget(parent) {
  m_sections = new QComboBox(this);
  m_sections->setMinimumContentsLength(28);
  m_svg = new QPushButton(tr("Export SVG..."), this);
  m_png = new QPushButton(tr("Export PNG..."), this);
  m_summary = new QLabel(this);
  m_summary->setWordWrap(true);
  m_canvas = new ChipCanvas(this);
  m_legend = new QLabel(this);
  m_legend->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  m_legend->setTextFormat(Qt::RichText);
  m_legend->setMinimumWidth(220);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Section:"), this));
  bar->addWidget(m_sections);
  bar->addStretch(1);
  bar->addWidget(m_svg);
  bar->addWidget(m_png);
  auto* body = new QHBoxLayout;
  body->addWidget(m_canvas, 1);
  body->addWidget(m_legend);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(m_summary);
  layout->addLayout(body, 1);
  connect(m_sections, &QComboBox::currentIndexChanged, this, &ChipPanel::onSectionChosen);
  connect(m_svg, &QPushButton::clicked, this, [this] { exportAs(QStringLiteral("svg")); });
  connect(m_png, &QPushButton::clicked, this, [this] { exportAs(QStringLiteral("png")); });
  clear();
}

void ChipPanel::clear() {
  m_pef.reset();
  const QSignalBlocker block(m_sections);
  m_sections->clear();
  m_canvas->setModel({});
  m_summary->setText(tr("Open a placed PEF to see its chip."));
  m_legend->clear();
  m_svg->setEnabled(false);
  m_png->setEnabled(false);
}

void ChipPanel::setPef(std::shared_ptr<const pef::Pef> pef) {
  clear();
  if (!pef || pef->bitfiles.empty()) {
    if (pef) m_summary->setText(tr("This PEF has no bitfiles: it was written before placement."));
    return;
  }
  m_pef = std::move(pef);
  {
    const QSignalBlocker block(m_sections);
    m_sections->addItem(tr("Whole step: unit use (heat map)"), kStep);
    for (const auto& s : m_pef->plan.sections)
      m_sections->addItem(QString::fromStdString(s.name), QString::fromStdString(s.name));
  }
  const int busiest = busiestSection(*m_pef);
  showSection(busiest >= 0 ? QString::fromStdString(m_pef->plan.sections.at(static_cast<size_t>(busiest)).name)
                           : kStep);
}

bool ChipPanel::showSection(const QString& name) {
  const int index = m_sections->findData(name);
  if (index < 0) return false;
  if (index == m_sections->currentIndex())
    onSectionChosen(index);
  else
    m_sections->setCurrentIndex(index);
  return true;
}

void ChipPanel::onSectionChosen(int index) {
  if (!m_pef || index < 0) return;
  const QString name = m_sections->itemData(index).toString();
  if (name == kStep) return setModel(analysis::stepHeat(*m_pef));
  auto model = analysis::chipModel(*m_pef, name.toStdString());
  if (!model) return m_summary->setText(QString::fromStdString(model.error().message()));
  setModel(std::move(*model));
}

void ChipPanel::setModel(analysis::ChipModel model) {
  describe(model);
  m_canvas->setModel(std::move(model));
  m_svg->setEnabled(m_canvas->model().rows > 0);
  m_png->setEnabled(m_canvas->model().rows > 0);
}

void ChipPanel::describe(const analysis::ChipModel& m) {
  const QString shape =
      tr("%1 tile(s) of %2x%3 on %4 chip(s)").arg(m.tiles).arg(m.tileRows).arg(m.tileCols).arg(m.chips());
  if (!m.heat.empty()) {
    m_summary->setText(
        tr("Unit use over the step: each cell by the section calls that keep its unit busy, of %1 calls; %2.")
            .arg(m.calls)
            .arg(shape));
    const int most = *std::max_element(m.heat.begin(), m.heat.end());
    m_legend->setText(tr("<b>Heat map</b><br>white: idle all step<br><span style='color:#d96b0d'>&#9632;</span> the "
                         "busiest unit: %1 of %2 calls")
                          .arg(most)
                          .arg(m.calls));
    return;
  }
  const int pmus = static_cast<int>(std::count_if(m.units.begin(), m.units.end(), [](const auto& u) { return u.pmu; }));
  QString links = m.capacity == 0 ? tr("links not recorded (a PEF from before format 1.4)")
                                  : tr("%1 links routed, most loaded %2 of %3 nets, %4 over capacity")
                                        .arg(m.links.size())
                                        .arg(m.maxLoad())
                                        .arg(m.capacity)
                                        .arg(m.overCapacityLinks());
  m_summary->setText(tr("Section %1 (hypersection %2, shared by %3 section(s)): %4 PCUs, %5 PMUs; %6; %7.")
                         .arg(QString::fromStdString(m.title), QString::fromStdString(m.hypersection))
                         .arg(m.sections.size())
                         .arg(static_cast<int>(m.units.size()) - pmus)
                         .arg(pmus)
                         .arg(shape, links));
  QString legend = tr("<b>Ops</b> (square PCU, round lighter PMU)<br>");
  const auto colours = analysis::opColours(m.ops());
  for (const std::string& op : m.ops())
    legend += QStringLiteral("<span style='color:%1'>&#9632;</span> %2<br>")
                  .arg(QString::fromStdString(colours.at(op)), QString::fromStdString(op).toHtmlEscaped());
  legend += tr("<br><b>Links</b>: nets / capacity<br>") +
            QStringLiteral(
                "<span style='color:%1'>&#9644;</span> %2<br><span style='color:%3'>&#9644;</span> %4<br>"
                "<span style='color:%5'>&#9644;</span> %6")
                .arg(QString::fromStdString(analysis::linkColour(1, 8)), tr("lightly loaded"),
                     QString::fromStdString(analysis::linkColour(8, 8)), tr("exactly full"),
                     QString::fromLatin1(analysis::kOverCapacityColour), tr("over capacity"));
  m_legend->setText(legend);
}

QSize ChipPanel::exportSize() const {
  const auto& m = m_canvas->model();
  const int cell = std::max(3, std::min(16, 4000 / std::max({1, m.rows, m.cols})));
  return {m.cols * cell + 16, m.rows * cell + 16};
}

bool ChipPanel::exportSvg(const QString& path, QString* error) {
  const auto& m = m_canvas->model();
  if (m.rows == 0) return fail(error, tr("No chip to export"));
  if (m.heat.empty()) return writeExportFile(path, QByteArray::fromStdString(analysis::chipSvg(m)), error);
  QBuffer svg;  // the heat map as painted
  svg.open(QIODevice::WriteOnly);
  QSvgGenerator generator;
  generator.setOutputDevice(&svg);
  generator.setSize(exportSize());
  generator.setViewBox(QRect(QPoint(0, 0), exportSize()));
  QPainter painter;
  if (!painter.begin(&generator)) return fail(error, tr("Cannot write %1").arg(path));
  m_canvas->paint(painter, exportSize());
  painter.end();
  return writeExportFile(path, svg.data(), error);
}

bool ChipPanel::exportPng(const QString& path, QString* error) {
  if (m_canvas->model().rows == 0) return fail(error, tr("No chip to export"));
  QImage image(exportSize(), QImage::Format_ARGB32);
  QPainter painter(&image);
  m_canvas->paint(painter, image.size());
  painter.end();
  QBuffer png;
  png.open(QIODevice::WriteOnly);
  if (!image.save(&png, "PNG")) return fail(error, tr("Cannot write %1").arg(path));
  return writeExportFile(path, png.data(), error);
}

void ChipPanel::exportAs(const QString& format) {
  const bool svg = format == QStringLiteral("svg");
  const QString path =
      QFileDialog::getSaveFileName(this, svg ? tr("Export chip as SVG") : tr("Export chip as PNG"),
                                   QString::fromStdString(m_canvas->model().title) + QLatin1Char('.') + format,
                                   svg ? tr("SVG images (*.svg)") : tr("PNG images (*.png)"));
  if (path.isEmpty()) return;
  QString error;
  if (!(svg ? exportSvg(path, &error) : exportPng(path, &error)))
    QMessageBox::warning(this, tr("Export failed"), error);
}

}  // namespace dfc::views
