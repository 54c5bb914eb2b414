#include "support/ExportButton.h"

#include <QCoreApplication>
#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>
#include <QToolButton>

namespace dfc::views {

QToolButton* makeExportButton(QWidget* parent, const QString& title, const std::vector<ExportEntry>& entries) {
  auto* button = new QToolButton(parent);
  button->setText(QCoreApplication::translate("dfc::views::ExportButton", "&Export"));
  button->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(button);
  for (const ExportEntry& entry : entries)
    menu->addAction(entry.menuText, parent, [parent, title, entry] {
      const QString path = QFileDialog::getSaveFileName(parent, title, entry.fileName, entry.filter);
      QString error;
      if (!path.isEmpty() && !entry.write(path, &error)) QMessageBox::warning(parent, title, error);
    });
  button->setMenu(menu);
  return button;
}

}  // namespace dfc::views
