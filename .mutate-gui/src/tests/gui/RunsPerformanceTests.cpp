// The Runs screen shows `dfc measure-performance` runs apart from training
// runs, with their figures, and charts them over time.
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QSet>
#include <QValueAxis>
#include <QLocale>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <catch2/catch.hpp>

#include "AppTestSupport.h"
#include "models/RunsTableModel.h"
#include "runs/OpProfileTable.h"
#include "runs/PerformanceChart.h"
#include "runs/RunsPanel.h"

using namespace dfc;

namespace {

// A measure-performance run of `pef` as the command records it: its args and figures.
void addPerformanceRun(profile::RunStore& store, const std::string& pef, const std::string& startedAt,
                       double samplesPerSecond, double medianMs) {
  profile::RunRecord r;
  r.pefPath = pef;
  r.args = "dfc measure-performance --pef " + pef + " --steps 20";
  r.startedAt = startedAt;
  auto id = store.beginRun(r);
  REQUIRE(id);
  REQUIRE(store.addMetrics(*id, {{1, 0, "step_ms", medianMs},
                                 {20, 0, "samples_per_s", samplesPerSecond},
                                 {20, 0, "latency_median_ms", medianMs},
                                 {20, 0, "latency_p90_ms", medianMs * 1.1},
                                 {20, 0, "latency_p99_ms", medianMs * 1.5},
                                 {20, 0, "est_samples_per_s", 9000}}));
  REQUIRE(store.finishRun(*id, "finished", std::nullopt, std::nullopt));
}

std::string storeWithRuns(const QTemporaryDir& dir) {
  const std::string db = dir.filePath(QStringLiteral("runs.sqlite")).toStdString();
  auto store = profile::RunStore::open(db);
  REQUIRE(store);
  REQUIRE(store->recordCompile(apptest::makeCompileRecord("/tmp/x/lenet.pef", "lenet")));
  profile::RunRecord training;
  training.pefPath = "/tmp/x/lenet.pef";
  training.args = "dfc run -p /tmp/x/lenet.pef";
  training.startedAt = "2026-01-02T03:05:00Z";
  training.epochs = 1;
  auto id = store->beginRun(training);
  REQUIRE(id);
  REQUIRE(store->finishRun(*id, "finished", 0.5, 0.8));
  addPerformanceRun(*store, "/tmp/x/lenet.pef", "2026-01-02T03:06:00Z", 800, 20);
  addPerformanceRun(*store, "/tmp/x/lenet.pef", "2026-01-02T03:07:00Z", 1000, 16);
  addPerformanceRun(*store, "/tmp/x/gpt2.pef", "2026-01-02T03:08:00Z", 50, 80);
  return db;
}

int rowsOfKind(const views::RunsPanel& panel, const QString& kind) {
  int n = 0;
  for (int row = 0; row < panel.proxy()->rowCount(); ++row)
    n += panel.proxy()->index(row, views::RunsTableModel::Kind).data().toString() == kind;
  return n;
}

}  // namespace

TEST_CASE("Runs screen lists measure-performance runs apart from training runs and charts them", "[gui][runs]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  const std::string db = storeWithRuns(dir);
  views::RunsPanel panel;
  panel.resize(1000, 700);
  panel.show();
  QSignalSpy refreshed(&panel, &views::RunsPanel::refreshed);
  panel.setDbPath(QString::fromStdString(db));
  if (panel.isBusy()) REQUIRE(refreshed.wait(10000));
  REQUIRE(panel.proxy()->rowCount() == 5);
  CHECK(rowsOfKind(panel, QStringLiteral("performance")) == 3);
  CHECK(rowsOfKind(panel, QStringLiteral("run")) == 1);
  CHECK(rowsOfKind(panel, QStringLiteral("compile")) == 1);

  bool sawFigures = false;
  for (int row = 0; row < panel.proxy()->rowCount(); ++row)
    sawFigures |= panel.proxy()
                      ->index(row, views::RunsTableModel::Details)
                      .data()
                      .toString()
                      .startsWith(QStringLiteral("%1 samples/s, step median %2 ms")
                                      .arg(QLocale().toString(1000.0, 'f', 1), QLocale().toString(16.0, 'f', 3)));
  CHECK(sawFigures);

  // One point per performance run, in time order, on each series of its PEF.
  views::PerformanceChart* chart = panel.performanceChart();
  REQUIRE(chart->pefCount() == 2);
  QLineSeries* lenet = chart->throughputSeries(QStringLiteral("lenet"));
  REQUIRE(lenet != nullptr);
  REQUIRE(lenet->count() == 2);
  CHECK(lenet->at(0).y() == 800);
  CHECK(lenet->at(1).y() == 1000);
  CHECK(lenet->at(0).x() < lenet->at(1).x());
  CHECK(chart->medianSeries(QStringLiteral("lenet"))->at(1).y() == 16);
  CHECK(chart->p99Series(QStringLiteral("lenet"))->at(1).y() == 24);
  REQUIRE(chart->throughputSeries(QStringLiteral("gpt2")) != nullptr);
  CHECK(chart->throughputSeries(QStringLiteral("gpt2"))->count() == 1);
  CHECK(chart->throughputSeries(QStringLiteral("lenet"))->color() !=
        chart->throughputSeries(QStringLiteral("gpt2"))->color());

  // The chart follows the filter: one PEF's runs only.
  panel.filterEdit()->setText(QStringLiteral("gpt2"));
  REQUIRE(chart->pefCount() == 1);
  REQUIRE(chart->throughputSeries(QStringLiteral("gpt2"))->count() == 1);
  CHECK(chart->throughputSeries(QStringLiteral("gpt2"))->at(0).y() == 50);
}

TEST_CASE("Runs screen shows the selected measure-performance run's host time by kernel", "[gui][runs]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  const std::string db = dir.filePath(QStringLiteral("runs.sqlite")).toStdString();
  {
    auto store = profile::RunStore::open(db);
    REQUIRE(store);
    addPerformanceRun(*store, "/tmp/x/plain.pef", "2026-01-02T03:06:00Z", 100, 50);  // no --op-profile
    profile::RunRecord r;
    r.pefPath = "/tmp/x/gpt2.pef";
    r.args = "dfc measure-performance --pef /tmp/x/gpt2.pef --op-profile";
    r.startedAt = "2026-01-02T03:09:00Z";
    auto id = store->beginRun(r);
    REQUIRE(id);
    // Stored in no particular order: the table puts the largest first.
    std::vector<driver::OpTime> ops = {{"attention backward (fused)", "transformer", 4, 7.5},
                                       {"matmul + bias_add", "linalg", 16, 85},
                                       {"gelu", "transformer", 4, 18.25}};
    std::vector<profile::MetricRecord> metrics = driver::opProfileMetrics(ops, 20);
    metrics.push_back({20, 0, "samples_per_s", 25});
    metrics.push_back({20, 0, "latency_median_ms", 300});
    metrics.push_back({20, 0, "latency_mean_ms", 320});
    REQUIRE(store->addMetrics(*id, metrics));
    REQUIRE(store->finishRun(*id, "finished", std::nullopt, std::nullopt));
  }
  views::RunsPanel panel;
  panel.resize(1200, 800);
  panel.show();
  QSignalSpy refreshed(&panel, &views::RunsPanel::refreshed);
  panel.setDbPath(QString::fromStdString(db));
  if (panel.isBusy()) REQUIRE(refreshed.wait(10000));
  REQUIRE(panel.proxy()->rowCount() == 2);
  QTableWidget* ops = panel.opProfile()->table();
  // Nothing selected: the newest profiled run (the only one here).
  CHECK(ops->rowCount() == 3);
  CHECK(panel.opProfile()->caption()->text().contains(QStringLiteral("newest profiled run")));
  // Filtered to runs without a profile: a hint.
  panel.filterEdit()->setText(QStringLiteral("plain"));
  CHECK(ops->rowCount() == 0);
  CHECK(panel.opProfile()->caption()->text().contains(QStringLiteral("Select a measure-performance run")));
  panel.filterEdit()->clear();

  auto selectPef = [&](const QString& name) {
    for (int row = 0; row < panel.proxy()->rowCount(); ++row)
      if (panel.proxy()->index(row, views::RunsTableModel::Name).data().toString() == name) {
        panel.table()->selectRow(row);
        return true;
      }
    return false;
  };
  REQUIRE(selectPef(QStringLiteral("gpt2")));
  REQUIRE(ops->rowCount() == 3);
  CHECK(ops->item(0, views::OpProfileTable::Kernel)->text() == QStringLiteral("matmul + bias_add"));
  CHECK(ops->item(0, views::OpProfileTable::Family)->text() == QStringLiteral("linalg"));
  CHECK(ops->item(1, views::OpProfileTable::Kernel)->text() == QStringLiteral("gelu"));
  CHECK(ops->item(2, views::OpProfileTable::Kernel)->text() == QStringLiteral("attention backward (fused)"));
  CHECK(ops->item(0, views::OpProfileTable::MsPerStep)->text() == QLocale().toString(85.0, 'f', 3));
  // Shares of the mean step (320 ms): 85 ms is 26.6 %.
  CHECK(ops->item(0, views::OpProfileTable::ShareOfStep)->text().startsWith(QLocale().toString(26.6, 'f', 1)));
  CHECK(ops->item(0, views::OpProfileTable::CallsPerStep)->text() == QLocale().toString(16.0, 'f', 1));
  CHECK(panel.opProfile()->caption()->text().contains(QStringLiteral("gpt2")));

  // A run measured without --op-profile says how to get one.
  REQUIRE(selectPef(QStringLiteral("plain")));
  CHECK(ops->rowCount() == 0);
  CHECK(panel.opProfile()->caption()->text().contains(QStringLiteral("--op-profile")));
}

TEST_CASE("The performance chart's value axes label every tick differently", "[gui][runs]") {
  guitest::ensureApp();
  auto labels = [](const QValueAxis* axis) {
    QStringList out;
    const int ticks = axis->tickCount();
    for (int i = 0; i < ticks; ++i) {
      const double value = axis->min() + (axis->max() - axis->min()) * i / (ticks - 1);
      out << QString::asprintf(axis->labelFormat().toLatin1().constData(), value);
    }
    return out;
  };
  views::PerformanceChart chart;  // empty: nothing measured yet
  for (int points = 0; points < 2; ++points) {
    if (points == 1)
      chart.setPoints({{QStringLiteral("lenet"), QDateTime::currentDateTimeUtc(), 0.7, 0.3, 0.45},
                       {QStringLiteral("lenet"), QDateTime::currentDateTimeUtc().addSecs(60), 2.4, 0.2, 0.3}});
    const auto axes = chart.chart()->axes(Qt::Vertical);
    REQUIRE(axes.size() == 2);
    for (QAbstractAxis* a : axes) {
      const QStringList shown = labels(qobject_cast<QValueAxis*>(a));
      INFO(a->titleText().toStdString() << ": " << shown.join(QStringLiteral(" ")).toStdString());
      CHECK(QSet<QString>(shown.begin(), shown.end()).size() == shown.size());
    }
  }
}
