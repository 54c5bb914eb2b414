#include "schedule/SchedulePanel.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QLogValueAxis>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "models/ScheduleTableModel.h"
#include "schedule/GanttStrip.h"
#include "timeline/SliceInfo.h"

namespace dfc::views {
namespace {

constexpr int kMaxBars = 16;  // more bars are hairlines with unreadable labels

// One bar per section, or per run of consecutive sections past kMaxBars
// ("s40–s47"): latency summed, unit use the run's peak.
struct ChartBin {
  QString label;
  double estUs = 0, measuredUs = 0;
  int pcus = 0, pmus = 0;
};

std::vector<ChartBin> chartBins(const ScheduleData& data) {
  const size_t n = data.sections.size();
  const size_t per = std::max<size_t>(1, (n + kMaxBars - 1) / kMaxBars);
  std::vector<ChartBin> bins;
  for (size_t first = 0; first < n; first += per) {
    const size_t last = std::min(n, first + per) - 1;
    ChartBin bin;
    // A bar's first section names it (short enough to stay readable); the tooltip-free axis title says so.
    bin.label = QString::number(data.sections[first].id);
    for (size_t i = first; i <= last; ++i) {
      const ScheduleSection& s = data.sections[i];
      bin.estUs += s.estLatencyUs;
      bin.measuredUs += s.measuredMeanUs.value_or(0.0);
      bin.pcus = std::max(bin.pcus, s.pcus);
      bin.pmus = std::max(bin.pmus, s.pmus);
    }
    bins.push_back(bin);
  }
  return bins;
}

// The latency axis in a unit that keeps its numbers short (322 gpt2 sections
// summed per bar reach 200,000 us: the axis reads 200 ms instead).
struct TimeUnit {
  double perUs = 1;
  QString name;
};

TimeUnit latencyUnit(double maxUs) {
  if (maxUs >= 1e7) return {1e6, QStringLiteral("s")};
  if (maxUs >= 1e4) return {1e3, QStringLiteral("ms")};
  return {1, QStringLiteral("µs")};
}

QChart* newChart(const QString& title) {
  auto* chart = new QChart;
  chart->setTitle(title);
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->setMargins(QMargins(4, 4, 4, 4));
  return chart;
}

void attachAxes(QChart* chart, QAbstractSeries* series, const QStringList& categories, const QString& xTitle,
                const QString& yTitle, double yMax, double yMinPositive = 0) {
  auto* x = new QBarCategoryAxis;
  x->append(categories);
  x->setTitleText(xTitle);
  x->setLabelsFont([] {
    QFont font;
    font.setPointSizeF(7.5);
    return font;
  }());
  QAbstractAxis* y = nullptr;
  if (yMinPositive > 0 && yMax / yMinPositive > 50) {
    // Measured CPU-simulator times and estimated chip times differ by orders
    // of magnitude; on a linear axis the smaller would vanish.
    auto* log = new QLogValueAxis;
    log->setBase(10);
    log->setLabelFormat(QStringLiteral("%g"));
    log->setRange(std::pow(10.0, std::floor(std::log10(yMinPositive))), std::pow(10.0, std::ceil(std::log10(yMax))));
    log->setMinorTickCount(-1);
    y = log;
  } else {
    auto* linear = new QValueAxis;
    linear->setRange(0, yMax > 0 ? yMax * 1.08 : 1.0);
    linear->applyNiceNumbers();
    linear->setLabelFormat(QStringLiteral("%g"));  // "150", not "150.0"
    y = linear;
  }
  y->setTitleText(yTitle);
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  series->attachAxis(x);
  series->attachAxis(y);
}

// The step as `dfc estimate` prints it: throughput, the split, the bound and the shares.
QString estimateText(const estimate::StepEstimate& e) {
  constexpr int H = static_cast<int>(estimate::Tier::Hbm), D = static_cast<int>(estimate::Tier::Ddr);
  auto ms = [](double us) { return formatDuration(us); };
  auto pct = [](double share) { return QString::number(100 * share, 'f', 1) + QLatin1Char('%'); };
  QString where = e.chips > 1 ? SchedulePanel::tr("%1 x %2, tensor parallel").arg(e.chips).arg(QString::fromStdString(e.arch))
                              : QString::fromStdString(e.arch);
  // A tier the arch does not have is left out, not shown as "0 us" beside the others.
  const QString tiers = e.tierGbps[H] > 0 ? SchedulePanel::tr("HBM %1, DDR %2").arg(ms(e.tierUs[H]), ms(e.tierUs[D]))
                                          : SchedulePanel::tr("DDR %1; no HBM").arg(ms(e.tierUs[D]));
  QString text = SchedulePanel::tr("Step estimate (dfc estimate; %1, %2 fusion): <b>%3 %4</b>, step %5 = compute %6, "
                                   "memory %7 (%8), communication %9, call overhead %10. Bound: <b>%11</b>.")
                     .arg(where, QString::fromLatin1(estimate::fusionName(e.fusion)),
                          QString::number(e.throughput, 'f', 1), QString::fromStdString(e.unit), ms(e.stepUs),
                          ms(e.computeUs), ms(e.memoryUs), tiers, ms(e.commUs))
                     .arg(ms(e.overheadUs), QString::fromStdString(e.bound));
  QString shares = SchedulePanel::tr(" Share of peak: %1 of %2 TFLOP/s").arg(pct(e.flopShare)).arg(e.peakTflops);
  if (e.tierGbps[H] > 0) shares += SchedulePanel::tr(", HBM %1 of %2 GB/s").arg(pct(e.tierShare[H])).arg(e.tierGbps[H]);
  shares += SchedulePanel::tr(", DDR %1 of %2 GB/s").arg(pct(e.tierShare[D])).arg(e.tierGbps[D]);
  if (e.chips > 1) shares += SchedulePanel::tr(", chip link %1 of %2 GB/s").arg(pct(e.linkShare)).arg(e.linkGbps);
  return text + shares + QLatin1Char('.');
}

// The two per-step figures come from different models; each line's tooltip says which.
QString summaryToolTip() {
  return SchedulePanel::tr("Sum of the Est. latency column: each section's own compile-time cost-model latency "
                           "(arch/CostModel), the sections running one after another, with no call overhead and no "
                           "overlap between sections. The step estimate on the next line is a different model.");
}

QString estimateToolTip(const estimate::StepEstimate& e) {
  QString fusion = SchedulePanel::tr("section fusion: one call per section, each paying its call overhead");
  if (e.fusion == estimate::Fusion::Block)
    fusion = SchedulePanel::tr("block fusion: the sections stream as one pipelined call, the next "
                               "section's weights loading while this one computes, one call overhead");
  else if (e.fusion == estimate::Fusion::Layer)
    fusion = SchedulePanel::tr("layer fusion: one pipelined call per decoder layer, drained between calls, "
                               "each paying its call overhead");
  return SchedulePanel::tr("The whole-step model of dfc estimate (engine/estimate): per-tier memory traffic at %1 bytes "
                           "per element, compute, communication and %2. It differs from the sum of section latencies "
                           "on the line above, which adds each section's compile-time estimate.")
      .arg(e.elementBytes)
      .arg(fusion);
}

}  // namespace

SchedulePanel::SchedulePanel(QWidget* parent) : QWidget(parent) {
  m_model = new ScheduleTableModel(this);
  m_proxy = new QSortFilterProxyModel(this);
  m_proxy->setSourceModel(m_model);
  m_proxy->setSortRole(ScheduleTableModel::SortRole);
  m_table = new QTableView(this);
  m_table->setModel(m_proxy);
  m_table->setSortingEnabled(true);
  m_table->sortByColumn(ScheduleTableModel::Section, Qt::AscendingOrder);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->verticalHeader()->hide();
  m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->setAlternatingRowColors(true);

  m_gantt = new GanttStrip(this);
  m_summary = new QLabel(this);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_estimate = new QLabel(this);
  m_estimate->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_estimate->setWordWrap(true);
  m_estimate->setTextFormat(Qt::RichText);

  m_latencyChart = new QChartView(this);
  m_latencyChart->setRenderHint(QPainter::Antialiasing);
  m_latencyChart->setMinimumHeight(220);
  m_useChart = new QChartView(this);
  m_useChart->setRenderHint(QPainter::Antialiasing);
  m_useChart->setMinimumHeight(200);
  rebuildCharts();

  // The table spans the width (every column shows); the charts sit side by side below it.
  auto* charts = new QSplitter(Qt::Horizontal);
  charts->addWidget(m_latencyChart);
  charts->addWidget(m_useChart);
  m_body = new QSplitter(Qt::Vertical);
  m_body->addWidget(m_table);
  m_body->addWidget(charts);
  m_body->setStretchFactor(0, 1);
  m_body->setStretchFactor(1, 1);
  m_body->setSizes({400, 330});

  m_grouped = new QStandardItemModel(this);
  m_groupedProxy = new QSortFilterProxyModel(this);
  m_groupedProxy->setSourceModel(m_grouped);
  m_groupedProxy->setSortRole(Qt::UserRole);  // by the numbers, not their text
  m_groupBox = new QCheckBox(tr("&Group by hypersection"), this);
  m_groupBox->setToolTip(tr("One row per hypersection: its sections' calls and times per step"));
  connect(m_groupBox, &QCheckBox::toggled, this, &SchedulePanel::setGroupedByHypersection);
  auto* top = new QHBoxLayout;
  top->addWidget(m_summary, 1);
  top->addWidget(m_groupBox);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addWidget(m_estimate);
  layout->addWidget(m_gantt);
  layout->addWidget(m_body, 1);

  connect(m_gantt, &GanttStrip::sectionClicked, this, &SchedulePanel::selectSection);
  followSectionSelection();
  clear();
}

const ScheduleData& SchedulePanel::data() const { return m_model->scheduleData(); }

void SchedulePanel::clear() { setData({}); }

void SchedulePanel::setColorIdentity(SharedColorIdentity identity) {
  m_identity = identity;
  m_model->setColorIdentity(identity);
  m_gantt->setColorIdentity(std::move(identity));
}

void SchedulePanel::setData(ScheduleData data) {
  m_model->setData(std::move(data));
  const ScheduleData& d = m_model->scheduleData();
  m_gantt->setData(&d);
  m_table->resizeColumnsToContents();
  if (d.sections.empty()) {
    m_summary->setText(tr("No PEF loaded. Compile a model or open a PEF (Ctrl+O)."));
  } else {
    double est = 0;
    for (int id : d.schedule)
      if (const auto* s = d.section(id)) est += s->estLatencyUs;
    m_summary->setText(tr("%1 on %2: %n section(s), sum of section latencies %3 per step%4", nullptr,
                          static_cast<int>(d.sections.size()))
                           .arg(d.title, d.arch.isEmpty() ? tr("unknown arch") : d.arch, formatDuration(est),
                                d.hasMeasured() ? tr("; measured times from the latest recorded run")
                                                : tr("; no recorded run (measured column blank)")));
  }
  m_summary->setToolTip(d.sections.empty() ? QString() : summaryToolTip());
  m_estimate->setVisible(d.estimate.has_value());
  m_estimate->setText(d.estimate ? estimateText(*d.estimate) : QString());
  m_estimate->setToolTip(d.estimate ? estimateToolTip(*d.estimate) : QString());
  rebuildCharts();
  rebuildGrouped();
}

// The section table's current row drives the Gantt strip and, through the signal, the graph.
void SchedulePanel::followSectionSelection() {
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
    if (!current.isValid()) return;
    const int id = current.data(ScheduleTableModel::SectionIdRole).toInt();
    m_gantt->setSelectedSection(id);
    emit sectionSelected(id);
  });
}

bool SchedulePanel::isGroupedByHypersection() const { return m_table->model() == m_groupedProxy; }

void SchedulePanel::setGroupedByHypersection(bool grouped) {
  if (grouped == isGroupedByHypersection()) return;
  const QSignalBlocker block(m_groupBox);
  m_groupBox->setChecked(grouped);
  m_table->setModel(grouped ? m_groupedProxy : m_proxy);
  if (!grouped) followSectionSelection();  // setModel made a new selection model
  m_table->resizeColumnsToContents();
}

void SchedulePanel::rebuildGrouped() {
  m_grouped->clear();
  m_grouped->setHorizontalHeaderLabels({tr("Hypersection"), tr("Sections"), tr("Calls per step"), tr("Est. per step"),
                                        tr("Measured per step"), tr("Peak est. PCUs")});
  const QLocale locale;
  auto item = [](const QString& text, double sortValue) {
    auto* it = new QStandardItem(text);
    it->setData(sortValue, Qt::UserRole);
    it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    it->setEditable(false);
    return it;
  };
  for (const HypersectionRow& row : groupByHypersection(data())) {
    auto* name = new QStandardItem(row.name);
    name->setData(row.name, Qt::UserRole);
    name->setEditable(false);
    if (m_identity) name->setData(m_identity->hypersection(row.name), Qt::DecorationRole);
    m_grouped->appendRow({name, item(locale.toString(row.sections), row.sections),
                          item(locale.toString(row.callsPerStep), row.callsPerStep),
                          item(formatDuration(row.estPerStepUs), row.estPerStepUs),
                          item(row.measuredPerStepUs ? formatDuration(*row.measuredPerStepUs) : QString(),
                               row.measuredPerStepUs.value_or(-1.0)),
                          item(locale.toString(row.peakPcus), row.peakPcus)});
  }
  if (isGroupedByHypersection()) m_table->resizeColumnsToContents();
}

void SchedulePanel::selectSection(int sectionId) {
  setGroupedByHypersection(false);  // a section picked elsewhere shows in its own row
  for (int row = 0; row < m_proxy->rowCount(); ++row) {
    const QModelIndex index = m_proxy->index(row, 0);
    if (index.data(ScheduleTableModel::SectionIdRole).toInt() == sectionId) {
      m_table->selectRow(row);
      m_table->scrollTo(index);
      return;
    }
  }
}

void SchedulePanel::rebuildCharts() {
  const ScheduleData& d = m_model->scheduleData();
  const std::vector<ChartBin> bins = chartBins(d);
  QStringList categories;
  for (const ChartBin& bin : bins) categories << bin.label;
  const bool binned = bins.size() < d.sections.size();
  const QString perBar = binned ? tr(" (sections summed per bar)") : QString();
  const QString xTitle = binned ? tr("sections from") : tr("section");

  QChart* latency = newChart(tr("Estimated latency per section%1").arg(perBar));
  auto* latencySeries = new QBarSeries;
  double maxUs = 0;
  for (const ChartBin& bin : bins) maxUs = std::max({maxUs, bin.estUs, bin.measuredUs});
  const TimeUnit unit = latencyUnit(maxUs);
  auto* est = new QBarSet(tr("estimated (%1)").arg(unit.name));
  auto* measured = new QBarSet(tr("measured mean (%1)").arg(unit.name));
  double maxLatency = 0;
  double minLatency = 0;  // smallest positive value
  for (const ChartBin& bin : bins) {
    const double estimated = bin.estUs / unit.perUs, measuredMean = bin.measuredUs / unit.perUs;
    *est << estimated;
    *measured << measuredMean;
    maxLatency = std::max({maxLatency, estimated, measuredMean});
    for (double v : {estimated, measuredMean})
      if (v > 0 && (minLatency == 0 || v < minLatency)) minLatency = v;
  }
  latencySeries->append(est);
  if (d.hasMeasured()) latencySeries->append(measured);
  else delete measured;
  latency->addSeries(latencySeries);
  attachAxes(latency, latencySeries, categories, xTitle, unit.name, maxLatency, d.hasMeasured() ? minLatency : 0.0);

  const QString capacity = d.archPcus > 0 ? tr("Unit use per section (%1: %2 PCUs, %3 PMUs)").arg(d.arch).arg(d.archPcus).arg(d.archPmus)
                                          : tr("Unit use per section (arch capacity unknown)");
  QChart* use = newChart(capacity + (binned ? tr(" (peak per bar)") : QString()));
  auto* useSeries = new QBarSeries;
  // Against the capacity in the title: one chip, or all the chips the PEF was compiled for.
  auto* pcus = new QBarSet(tr("est. PCUs (% of capacity)"));
  auto* pmus = new QBarSet(tr("est. PMUs (% of capacity)"));
  double maxUse = 0;
  for (const ChartBin& bin : bins) {
    const double pcu = d.archPcus > 0 ? 100.0 * bin.pcus / d.archPcus : bin.pcus;
    const double pmu = d.archPmus > 0 ? 100.0 * bin.pmus / d.archPmus : bin.pmus;
    *pcus << pcu;
    *pmus << pmu;
    maxUse = std::max({maxUse, pcu, pmu});
  }
  useSeries->append(pcus);
  useSeries->append(pmus);
  use->addSeries(useSeries);
  // Against capacity: the axis runs to 100 % unless a section oversubscribes,
  // or all use a sliver of the chip (small models at -o0), when bars of under
  // 1 % would be invisible: then it zooms to the data. 100/1.08 undoes the
  // axis headroom, so a section at 99.8 % does not stretch the axis to 150 %.
  const double useTop = d.archPcus <= 0 ? maxUse
                        : maxUse >= 20  ? (maxUse <= 100 ? 100.0 / 1.08 : maxUse)
                                        : std::max(maxUse, 1.0);
  attachAxes(use, useSeries, categories, xTitle, d.archPcus > 0 ? tr("% of capacity") : tr("units"), useTop);

  QChart* oldLatency = m_latencyChart->chart();
  QChart* oldUse = m_useChart->chart();
  m_latencyChart->setChart(latency);
  m_useChart->setChart(use);
  delete oldLatency;
  delete oldUse;
}

}  // namespace dfc::views
