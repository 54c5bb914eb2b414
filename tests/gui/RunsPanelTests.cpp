#include <QLineEdit>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <catch2/catch.hpp>

#include "AppTestSupport.h"
#include "models/RunsTableModel.h"
#include "runs/RunsPanel.h"

using namespace dfc;

TEST_CASE("Runs browser lists a compile recorded in the store, filters, opens and deletes it", "[gui][runs]") {
  guitest::ensureApp();
  QTemporaryDir dir;
  const std::string db = dir.filePath(QStringLiteral("runs.sqlite")).toStdString();
  {
    auto store = profile::RunStore::open(db);
    REQUIRE(store);
    REQUIRE(store->recordCompile(apptest::makeCompileRecord("/tmp/x/logreg.pef", "logreg")));
    REQUIRE(store->recordCompile(apptest::makeCompileRecord("/tmp/x/lenet.pef", "lenet")));
  }
  views::RunsPanel panel;
  panel.resize(900, 400);
  panel.show();
  panel.setDbPath(QString::fromStdString(db));
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
  panel.setConfirm([&asked](const QString& q) { asked = q; return false; });
  CHECK(!panel.deleteSelected());
  CHECK(asked.contains(QStringLiteral("lenet")));
  panel.filterEdit()->clear();
  CHECK(panel.proxy()->rowCount() == 2);
  panel.filterEdit()->setText(QStringLiteral("lenet"));
  panel.table()->selectRow(0);
  panel.setConfirm([](const QString&) { return true; });
  REQUIRE(panel.deleteSelected());
  panel.filterEdit()->clear();
  CHECK(panel.proxy()->rowCount() == 1);
  auto store = profile::RunStore::open(db);
  REQUIRE(store);
  CHECK(store->listCompiles()->size() == 1);
}
