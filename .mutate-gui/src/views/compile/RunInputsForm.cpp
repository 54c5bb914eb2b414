#include "compile/RunInputsForm.h"

#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <climits>

#include "pef/Pef.h"

namespace dfc::views {

RunInputsForm::RunInputsForm(QWidget* parent)
    : QGroupBox(tr("Run on given inputs (inference PEFs of any model)"), parent) {
  setCheckable(true);
  setChecked(false);
  setToolTip(
      tr("dfc run --inference --input NAME=FILE|random: one forward step on these inputs instead of a data set"));
  auto* layout = new QVBoxLayout(this);
  m_note = new QLabel;
  m_note->setWordWrap(true);
  layout->addWidget(m_note);
  m_rows = new QFormLayout;
  layout->addLayout(m_rows);
  auto* common = new QFormLayout;
  m_seed = new QSpinBox;
  m_seed->setRange(0, INT_MAX);
  m_seed->setValue(1);
  m_seed->setToolTip(tr("--seed: random inputs draw f32 in [0, 1), integers in [0, 4), bools from this seed"));
  common->addRow(tr("Seed (random inputs):"), m_seed);
  m_outputDir = new QLineEdit;
  m_outputDir->setPlaceholderText(tr("optional: write each output as NAME.npy here"));
  auto* browse = new QPushButton(tr("Browse..."));
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Output folder"), m_outputDir->text());
    if (!dir.isEmpty()) m_outputDir->setText(dir);
  });
  auto* row = new QWidget;
  auto* rowLayout = new QHBoxLayout(row);
  rowLayout->setContentsMargins(0, 0, 0, 0);
  rowLayout->addWidget(m_outputDir, 1);
  rowLayout->addWidget(browse);
  common->addRow(tr("Outputs to:"), row);
  layout->addLayout(common);
  connect(this, &QGroupBox::toggled, this, [this](bool on) {
    if (on) loadRows();
  });
}

void RunInputsForm::setPef(const QString& pefPath) {
  m_pef = pefPath;
  if (isChecked()) loadRows();
}

void RunInputsForm::clearRows() {
  while (m_rows->rowCount() > 0) m_rows->removeRow(0);
  m_sources.clear();
}

// The PEF's graph inputs as rows; rows already filled for the same PEF are kept.
void RunInputsForm::loadRows() {
  if (m_pef == m_loadedPef && !m_sources.empty()) return;
  clearRows();
  m_loadedPef = m_pef;
  if (m_pef.isEmpty()) {
    m_note->setText(tr("Compile an inference model or choose a PEF: its inputs appear here."));
    return;
  }
  auto pef = pef::readPef(m_pef.toStdString(), pef::PefUse::View);
  if (!pef) {
    m_note->setText(tr("Cannot read the PEF's inputs: %1").arg(QString::fromStdString(pef.error().message())));
    return;
  }
  m_note->setText(
      pef->meta.inference
          ? tr("A .npy or .pb file of each input's exact type and shape, or random.")
          : tr("This PEF was compiled for training: compile with Inference only to run it on given inputs."));
  const std::vector<std::string> names = driver::inputNamesOf(*pef);
  for (size_t k = 0; k < names.size(); ++k) {
    const ir::Value& v = pef->graph.value(pef->graph.inputs[k]);
    const QString name = QString::fromStdString(names[k]);
    auto* edit = new QLineEdit(QString::fromLatin1(driver::kRandomInput));
    auto* browse = new QPushButton(tr("Browse..."));
    connect(browse, &QPushButton::clicked, this, [this, edit, name] {
      const QString path =
          QFileDialog::getOpenFileName(this, tr("Input %1").arg(name), {}, tr("Tensors (*.npy *.pb);;All files (*)"));
      if (!path.isEmpty()) edit->setText(path);
    });
    auto* row = new QWidget;
    auto* rowLayout = new QHBoxLayout(row);
    rowLayout->setContentsMargins(0, 0, 0, 0);
    rowLayout->addWidget(edit, 1);
    rowLayout->addWidget(browse);
    m_rows->addRow(QStringLiteral("%1 (%2):").arg(name, QString::fromStdString(v.type.toString())), row);
    m_sources.emplace_back(name, edit);
  }
}

std::vector<driver::InputBinding> RunInputsForm::bindings() const {
  std::vector<driver::InputBinding> out;
  if (!isChecked()) return out;
  for (const auto& [name, edit] : m_sources) {
    const QString source = edit->text().trimmed();
    out.push_back({name.toStdString(), source.isEmpty() ? driver::kRandomInput : source.toStdString()});
  }
  return out;
}

QString RunInputsForm::outputDir() const { return isChecked() ? m_outputDir->text().trimmed() : QString(); }

uint64_t RunInputsForm::seed() const { return static_cast<uint64_t>(m_seed->value()); }

QLineEdit* RunInputsForm::sourceEdit(const QString& name) const {
  for (const auto& [input, edit] : m_sources)
    if (input == name) return edit;
  return nullptr;
}

}  // namespace dfc::views
