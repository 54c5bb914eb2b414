// The screens table (app/dfstudio/Screens.cpp) drives the tabs, the View menu
// and --screen: each row is a tab with its title, a View entry with the same
// text and Alt+N, and its key shows it.
#include <QAction>
#include <QMenu>
#include <QMenuBar>
#include <QTabWidget>
#include <catch2/catch.hpp>

#include "GuiTestSupport.h"
#include "MainWindow.h"
#include "Screens.h"

using namespace dfc;

namespace {

QMenu* viewMenu(QMainWindow& window) {
  for (QAction* a : window.menuBar()->actions())
    if (a->menu() && a->text().remove(QLatin1Char('&')) == QLatin1String("View")) return a->menu();
  return nullptr;
}

}  // namespace

TEST_CASE("each screen of the table is a tab, a View menu entry and a --screen key", "[gui][screens]") {
  guitest::ensureApp();
  studio::MainWindow window(studio::DocumentLoaders{}, QStringLiteral("-"));
  const auto screens = studio::screens();
  REQUIRE(window.tabs()->count() == static_cast<int>(screens.size()));
  QMenu* view = viewMenu(window);
  REQUIRE(view != nullptr);
  const auto entries = view->actions();
  REQUIRE(entries.size() > static_cast<qsizetype>(screens.size()));
  for (const auto& screen : screens) {
    const int i = static_cast<int>(screen.id);
    INFO(screen.key);
    CHECK(window.tabs()->tabText(i) == studio::screenTitle(screen));
    CHECK(entries[i]->text() == studio::screenTitle(screen));  // one title: the menu and the tab agree
    CHECK(entries[i]->shortcut() == QKeySequence(Qt::ALT | static_cast<Qt::Key>(Qt::Key_1 + i)));
    window.showScreen(studio::MainWindow::Screen::Compile);
    CHECK(window.showScreen(QString::fromLatin1(screen.key)));
    CHECK(window.tabs()->currentIndex() == i);
  }
  CHECK(window.showScreen(QStringLiteral("timeline")));  // the graph screen's other name
  CHECK(window.tabs()->currentIndex() == static_cast<int>(studio::MainWindow::Screen::GraphTimeline));
  CHECK_FALSE(window.showScreen(QStringLiteral("nowhere")));
  CHECK(studio::MainWindow::screenNames() == studio::screenKeys());
}
