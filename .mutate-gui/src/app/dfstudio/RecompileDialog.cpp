#include "RecompileDialog.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace dfc::studio {
namespace {

// A path field with a Browse... button that asks for a file to save.
QWidget* pathRow(QLineEdit* edit, const QString& title, const QString& filter, QWidget* parent) {
  auto* row = new QWidget(parent);
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* browse = new QPushButton(RecompileDialog::tr("Browse..."), row);
  QObject::connect(browse, &QPushButton::clicked, row, [edit, title, filter, parent] {
    const QString path = QFileDialog::getSaveFileName(parent, title, edit->text(), filter);
    if (!path.isEmpty()) edit->setText(path);
  });
  edit->setMinimumWidth(420);
  layout->addWidget(edit, 1);
  layout->addWidget(browse);
  return row;
}

}  // namespace

RecompileDialog::RecompileDialog(const RecompileTargets& suggested, int decisions, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Recompile with decisions"));
  m_decisions = new QLineEdit(suggested.decisionsPath, this);
  m_pef = new QLineEdit(suggested.pefPath, this);
  auto* intro = new QLabel(tr("%n decision(s) are written to a decisions file, and the model is compiled again with "
                              "it (dfc compile --mac-human-decision). Both compiles then open side by side on Compare.",
                              nullptr, decisions),
                           this);
  intro->setWordWrap(true);
  auto* form = new QFormLayout;
  form->addRow(tr("&Decisions file:"), pathRow(m_decisions, tr("Decisions file"), tr("Decisions files (*.yaml)"), this));
  form->addRow(tr("&New PEF:"), pathRow(m_pef, tr("New PEF"), tr("PEF files (*.pef)"), this));
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Recompile"));
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(intro);
  layout->addLayout(form);
  layout->addWidget(buttons);
}

RecompileTargets RecompileDialog::targets() const {
  return {m_decisions->text().trimmed(), m_pef->text().trimmed()};
}

}  // namespace dfc::studio
