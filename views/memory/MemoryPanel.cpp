#include "memory/MemoryPanel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "memory/MemoryChart.h"
#include "style/Units.h"
#include "support/ExportButton.h"
#include "support/ExportFile.h"
#include "support/PictureExport.h"

namespace dfc::views {
namespace {

enum Column { Tensor, Kind, Bytes, Lifetime, Producer, Columns };

QTableWidgetItem* cell(const QString& text, double sortValue = 0, bool number = false) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
  if (number) {
    item->setData(Qt::UserRole, sortValue);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  }
  return item;
}

}  // namespace

MemoryPanel::MemoryPanel(QWidget* parent) : QWidget(parent) {
  m_summary = new QLabel(this);
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_tier = new QComboBox(this);
  for (MemTier t : {MemTier::Sram, MemTier::Hbm, MemTier::Ddr, MemTier::Host})
    m_tier->addItem(memTierDisplayName(t), static_cast<int>(t));
  m_tier->setToolTip(tr("The memory tier whose bytes the chart stacks"));
  m_chart = new MemoryChart(this);
  m_listTitle = new QLabel(this);
  m_table = new QTableWidget(0, Columns, this);
  m_table->setHorizontalHeaderLabels({tr("Tensor"), tr("Kind"), tr("Bytes"), tr("Live (calls)"), tr("Made by")});
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->verticalHeader()->hide();
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->setAlternatingRowColors(true);

  auto* top = new QHBoxLayout;
  top->addWidget(m_summary, 1);
  top->addWidget(new QLabel(tr("&Tier:"), this));
  static_cast<QLabel*>(top->itemAt(1)->widget())->setBuddy(m_tier);
  top->addWidget(m_tier);
  top->addWidget(makeExportButton());
  auto* list = new QWidget(this);
  auto* listLayout = new QVBoxLayout(list);
  listLayout->setContentsMargins(0, 0, 0, 0);
  listLayout->addWidget(m_listTitle);
  listLayout->addWidget(m_table, 1);
  auto* body = new QSplitter(Qt::Vertical, this);
  body->addWidget(m_chart);
  body->addWidget(list);
  body->setSizes({420, 300});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addWidget(body, 1);

  connect(m_tier, &QComboBox::currentIndexChanged, this, [this] {
    m_chart->setTier(tier());
    m_chart->setLifetime(-1, -1);
    showCall(-1);
    updateSummary();
  });
  connect(m_chart, &MemoryChart::callClicked, this, &MemoryPanel::showCall);
  connect(m_table, &QTableWidget::currentCellChanged, this, [this](int row) { activateRow(row); });
  setTier(MemTier::Hbm);
  clear();
}

QToolButton* MemoryPanel::makeExportButton() {
  auto csv = [this](const QString& path, QString* error) { return exportCsv(path, error); };
  auto picture = [this](const QString& path, QString* error) { return exportPicture(path, error); };
  return views::makeExportButton(
      this, tr("Export memory"),
      {{tr("Memory over the step (CSV)..."), QStringLiteral("memory.csv"), tr("CSV (*.csv)"), csv},
       {tr("Chart (PNG)..."), QStringLiteral("memory.png"), tr("PNG image (*.png)"), picture},
       {tr("Chart (SVG)..."), QStringLiteral("memory.svg"), tr("SVG image (*.svg)"), picture}});
}

void MemoryPanel::setData(MemoryViewData data) {
  m_data = std::move(data);
  m_chart->setData(&m_data);
  m_chart->setTier(tier());
  // Open on the tier that holds the most at its peak among the chip's off-chip tiers (HBM where there is one).
  if (!m_data.empty() && m_data.peak(tier()).call < 0)
    setTier(m_data.peak(MemTier::Hbm).call >= 0 ? MemTier::Hbm : MemTier::Ddr);
  showCall(-1);
  updateSummary();
}

void MemoryPanel::setTier(MemTier t) { m_tier->setCurrentIndex(m_tier->findData(static_cast<int>(t))); }

MemTier MemoryPanel::tier() const { return static_cast<MemTier>(m_tier->currentData().toInt()); }

void MemoryPanel::updateSummary() {
  if (m_data.empty()) {
    m_summary->setText(m_data.error.isEmpty() ? tr("No PEF loaded. Compile a model or open a PEF (Ctrl+O).")
                                              : tr("No memory timeline: %1").arg(m_data.error));
    return;
  }
  QStringList peaks;
  for (MemTier t : {MemTier::Sram, MemTier::Hbm, MemTier::Ddr, MemTier::Host}) {
    const analysis::TierPeak& p = m_data.peak(t);
    if (p.call >= 0)
      peaks << tr("%1 %2 (call %3)").arg(memTierDisplayName(t), formatBytes(static_cast<double>(p.bytes))).arg(p.call);
  }
  m_summary->setText(tr("%1: %n section call(s) per step. Peaks: %2.", nullptr, m_data.calls())
                         .arg(m_data.title, peaks.join(QStringLiteral(", "))));
}

void MemoryPanel::showCall(int call) {
  const analysis::TierPeak& peak = m_data.empty() ? analysis::TierPeak{} : m_data.peak(tier());
  m_call = call;
  m_listed.clear();
  if (call < 0 && peak.call >= 0) {
    m_listed = peak.tensors;
  } else if (call >= 0) {
    for (size_t i = 0; i < m_data.timeline.tensors.size(); ++i) {
      const analysis::LiveTensor& t = m_data.timeline.tensors[i];
      if (t.tier == tier() && t.first <= call && call <= t.last) m_listed.push_back(i);
    }
    std::stable_sort(m_listed.begin(), m_listed.end(), [this](size_t a, size_t b) {
      return m_data.timeline.tensors[a].bytes > m_data.timeline.tensors[b].bytes;
    });
  }
  const int shown = call >= 0 ? call : peak.call;
  m_chart->setCurrentCall(call);
  m_listTitle->setText(
      shown < 0 ? tr("This tier holds nothing in this step.")
      : call < 0
          ? tr("Tensors live at the peak (call %1), largest first; click one for its lifetime and its operator")
                .arg(shown)
          : tr("Tensors live at call %1, largest first (click the chart elsewhere for another call)").arg(shown));
  fillTable();
}

void MemoryPanel::fillTable() {
  const QSignalBlocker block(m_table);
  m_table->setSortingEnabled(false);
  const int rows = static_cast<int>(std::min<size_t>(m_listed.size(), kMaxRows));
  m_listed.resize(static_cast<size_t>(rows));
  m_table->setRowCount(rows);
  for (int r = 0; r < rows; ++r) {
    const size_t i = m_listed[static_cast<size_t>(r)];
    const analysis::LiveTensor& t = m_data.timeline.tensors[i];
    const MemoryTensorInfo& info = m_data.tensors[i];
    m_table->setItem(r, Tensor, cell(info.name));
    m_table->setItem(r, Kind, cell(memKindDisplayName(t.kind)));
    m_table->setItem(r, Bytes, cell(formatBytes(static_cast<double>(t.bytes)), static_cast<double>(t.bytes), true));
    m_table->setItem(r, Lifetime, cell(QStringLiteral("%1–%2").arg(t.first).arg(t.last)));
    const QString section =
        info.producerSection >= 0 ? m_data.sectionNames[static_cast<size_t>(info.producerSection)] : QString();
    m_table->setItem(r, Producer,
                     cell(info.producerName.isEmpty() ? tr("(input, weight or state)")
                                                      : QStringLiteral("%1 (%2)").arg(info.producerName, section)));
  }
  m_table->resizeColumnsToContents();
}

void MemoryPanel::activateRow(int row) {
  if (row < 0 || row >= static_cast<int>(m_listed.size())) return;
  if (m_table->currentRow() != row) {
    m_table->selectRow(row);  // the row change comes back here (currentCellChanged)
    return;
  }
  const size_t i = m_listed[static_cast<size_t>(row)];
  const analysis::LiveTensor& t = m_data.timeline.tensors[i];
  m_chart->setLifetime(t.first, t.last);
  const MemoryTensorInfo& info = m_data.tensors[i];
  emit tensorActivated(info.producer, info.producerSection, info.name);
}

bool MemoryPanel::exportCsv(const QString& path, QString* error) const {
  return writeExportFile(path, memoryViewCsv(m_data).toUtf8(), error);
}

bool MemoryPanel::exportPicture(const QString& path, QString* error) const {
  const QSize size = m_chart->size().isValid() && m_chart->width() > 100 ? m_chart->size() : QSize(1200, 500);
  return views::exportPicture(
      path, size, [this](QPainter& p, const QRectF& area) { m_chart->paintChart(p, area); }, error);
}

}  // namespace dfc::views
