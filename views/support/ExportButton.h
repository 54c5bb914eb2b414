#pragma once
// An "Export" tool button whose menu writes the view's files: each entry asks
// where (a save dialog named `title`) and says so in a message box when the
// write fails.
#include <QString>
#include <functional>
#include <vector>

class QToolButton;
class QWidget;

namespace dfc::views {

struct ExportEntry {
  QString menuText;  // "Chart (PNG)..."
  QString fileName;  // suggested: "memory.png"
  QString filter;    // "PNG image (*.png)"
  std::function<bool(const QString& path, QString* error)> write;
};

QToolButton* makeExportButton(QWidget* parent, const QString& title, const std::vector<ExportEntry>& entries);

}  // namespace dfc::views
