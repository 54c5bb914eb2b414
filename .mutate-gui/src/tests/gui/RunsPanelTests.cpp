#include <QLineEdit>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <atomic>
#include <catch2/catch.hpp>

#include "AppTestSupport.h"
#include "models/RunsTableModel.h"
#include "runs/RunsPanel.h"

using namespace dfc;

namespace {

std::string storeWithTwoCompiles(const QTemporaryDir& dir) {
  const std::string db = dir.filePath(QStringLiteral("runs.sqlite")).toStdString();
  auto store = profile::RunStore::open(db);
  REQUIRE(store);
  REQUIRE(store->recordCompile(apptest::makeCompileRecord("/tmp/x/logreg.pef", "logreg")));
  REQUIRE(store->recordCompile(apptest::makeCompileRecord("/tmp/x/lenet.pef", "lenet")));
  return db;
}

void waitRefreshed(views::RunsPanel& panel) {
  QSignalSpy refreshed(&panel, &views::RunsPanel::refreshed);
  if (panel.isBusy()) REQUIRE(refreshed.wait(10000));
  REQUIRE(!panel.isBusy());
}

}  // namespace

TEST_CASE("Runs browser lists a compile recorded in the store, filters, opens and deletes it", "[gui][runs]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  const std::string db = storeWithTwoCompiles(dir);
  views::RunsPanel panel;
  panel.resize(900, 400);
  panel.show();
  panel.setDbPath(QString::fromStdString(db));
  waitRefreshed(panel);
  REQUIRE(panel.proxy()->rowCount() == 2);

  QTest::keyClicks(panel.filterEdit(), QStringLiteral("LENET"));  // case-insensitive
  REQUIRE(panel.proxy()->rowCount() == 1);
  CHECK(panel.proxy()->index(0, views::RunsTableModel::Name).data().toString().contains(QStringLiteral("lenet")));

  QSignalSpy open(&panel, &views::RunsPanel::openPefRequested);
  const QModelIndex cell = panel.proxy()->index(0, views::RunsTableModel::Name);
  const QRect rect = panel.table()->visualRect(cell);
  QTest::mouseClick(panel.table()->viewport(), Qt::LeftButton, {}, rect.center());
  QTest::mouseDClick(panel.table()->viewport(), Qt::LeftButton, {}, rect.center());
  REQUIRE(open.count() == 1);
  CHECK(open.at(0).at(0).toString() == QStringLiteral("/tmp/x/lenet.pef"));

  // Declining the confirmation keeps it; accepting deletes it from the store.
  QString asked;
  panel.setConfirm([&asked](const QString& q) {
    asked = q;
    return false;
  });
  CHECK(!panel.deleteSelected());
  CHECK(!panel.isBusy());
  CHECK(asked.contains(QStringLiteral("lenet")));
  panel.filterEdit()->clear();
  CHECK(panel.proxy()->rowCount() == 2);
  panel.filterEdit()->setText(QStringLiteral("lenet"));
  panel.table()->selectRow(0);
  panel.setConfirm([](const QString&) { return true; });
  REQUIRE(panel.deleteSelected());
  waitRefreshed(panel);
  panel.filterEdit()->clear();
  CHECK(panel.proxy()->rowCount() == 1);
  auto store = profile::RunStore::open(db);
  REQUIRE(store);
  CHECK(store->listCompiles()->size() == 1);
}

TEST_CASE("Runs browser reads the store on a worker thread, never on the GUI thread", "[gui][runs]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  const std::string db = storeWithTwoCompiles(dir);
  views::RunsPanel panel;
  std::atomic<int> reads{0};
  std::atomic<bool> onGuiThread{false};
  QThread* const gui = QThread::currentThread();
  panel.setStoreReader([&](const QString& path) {
    ++reads;
    if (QThread::currentThread() == gui) onGuiThread = true;
    return views::RunsPanel::readStore(path);
  });
  panel.setDbPath(QString::fromStdString(db));
  CHECK(panel.isBusy());  // the rows arrive later
  waitRefreshed(panel);
  CHECK(reads == 1);
  CHECK(!onGuiThread);
  CHECK(panel.model()->rowCount() == 2);

  // Opening the screen refreshes it: also off the GUI thread.
  panel.refresh();
  waitRefreshed(panel);
  CHECK(reads == 2);
  CHECK(!onGuiThread);
}

TEST_CASE("A newer refresh of the runs browser supersedes an older one", "[gui][runs]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  const std::string db = storeWithTwoCompiles(dir);
  views::RunsPanel panel;
  QSignalSpy refreshed(&panel, &views::RunsPanel::refreshed);
  panel.setDbPath(QString::fromStdString(db));
  panel.setDbPath(QStringLiteral("-"));  // asked last: no store, no rows
  waitRefreshed(panel);
  // Both ran on the store's one thread in order, so the older one's result was
  // handed back (and dropped) before the newer one's.
  CHECK(refreshed.count() == 1);
  CHECK(panel.model()->rowCount() == 0);
}
