#pragma once
// The screens table: one row per dfstudio screen (id, key, title). The tabs,
// the View menu (Alt+1.. in table order), `--screen KEY` and `--list-screens`
// all read it, so a screen is added in one place (besides its widget).
#include <QString>
#include <QStringList>
#include <span>

#include "MainWindow.h"

namespace dfc::studio {

struct ScreenInfo {
  MainWindow::Screen id;
  const char* key;    // what --screen takes and --list-screens prints
  const char* title;  // untranslated tab and View-menu text (with its & mnemonic)
};

// In MainWindow::Screen order (the tab index is the enum's value).
std::span<const ScreenInfo> screens();
QString screenTitle(const ScreenInfo& screen);  // translated
QStringList screenKeys();
// The screen a --screen value names ("timeline" is the graph's), or -1.
int screenIndex(const QString& key);

}  // namespace dfc::studio
