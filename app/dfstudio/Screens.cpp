#include "Screens.h"

#include <QCoreApplication>

namespace dfc::studio {

namespace {

using Screen = MainWindow::Screen;

// Titles are translated in MainWindow's context, where the .ts file has them.
constexpr ScreenInfo kScreens[] = {
    {Screen::Compile, "compile", QT_TRANSLATE_NOOP("dfc::studio::MainWindow", "&Compile")},
    {Screen::GraphTimeline, "graph", QT_TRANSLATE_NOOP("dfc::studio::MainWindow", "&Graph && Timeline")},
    {Screen::Schedule, "schedule", QT_TRANSLATE_NOOP("dfc::studio::MainWindow", "&Schedule")},
    {Screen::Runs, "runs", QT_TRANSLATE_NOOP("dfc::studio::MainWindow", "R&uns")},
    {Screen::Compare, "compare", QT_TRANSLATE_NOOP("dfc::studio::MainWindow", "Com&pare")},
    {Screen::Memory, "memory", QT_TRANSLATE_NOOP("dfc::studio::MainWindow", "&Memory")},
    {Screen::Roofline, "roofline", QT_TRANSLATE_NOOP("dfc::studio::MainWindow", "R&oofline")},
    {Screen::Chip, "chip", QT_TRANSLATE_NOOP("dfc::studio::MainWindow", "C&hip")},
};

constexpr bool inEnumOrder() {
  for (size_t i = 0; i < std::size(kScreens); ++i)
    if (static_cast<size_t>(kScreens[i].id) != i) return false;
  return true;
}
static_assert(inEnumOrder(),
              "the screens table must list MainWindow::Screen in order: the tab index is the enum value");

}  // namespace

std::span<const ScreenInfo> screens() { return kScreens; }

QString screenTitle(const ScreenInfo& screen) {
  return QCoreApplication::translate("dfc::studio::MainWindow", screen.title);
}

QStringList screenKeys() {
  QStringList keys;
  for (const auto& s : kScreens) keys << QString::fromLatin1(s.key);
  return keys;
}

int screenIndex(const QString& key) {
  const QString k = key.toLower() == QLatin1String("timeline") ? QStringLiteral("graph") : key.toLower();
  return static_cast<int>(screenKeys().indexOf(k));
}

}  // namespace dfc::studio
