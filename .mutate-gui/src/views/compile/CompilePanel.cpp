#include "compile/CompilePanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>
#include <climits>

#include "arch/ArchSpec.h"
#include "compile/LogForwarder.h"
#include "compile/RunInputsForm.h"
#include "frontend/ModelZoo.h"

namespace dfc::views {
namespace {

QString fromStd(const std::string& s) { return QString::fromStdString(s); }

constexpr int kProgressSteps = 1000;  // the compile progress bar's range

// A line edit with a "Browse..." button beside it.
QWidget* withBrowse(QWidget* field, QPushButton* button) {
  auto* row = new QWidget;
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(field, 1);
  layout->addWidget(button);
  return row;
}

}  // namespace

CompilePanel::CompilePanel(QWidget* parent) : QWidget(parent) {
  m_compile = new QPushButton(tr("&Compile"), this);
  m_compile->setDefault(true);
  m_run = new QPushButton(tr("&Run"), this);
  m_cancel = new QPushButton(tr("Cancel"), this);
  m_cancel->setEnabled(false);
  m_progress = new QProgressBar(this);
  m_progress->setRange(0, 1);
  m_progress->setValue(0);
  m_progress->setFormat(tr("idle"));
  m_progress->setTextVisible(true);
  m_source = new QLabel(this);
  m_source->setWordWrap(true);
  m_source->setStyleSheet(QStringLiteral("QLabel { background: #e8f0fe; color: #1a3a6b; padding: 4px; }"));
  m_source->setVisible(false);
  m_status = new QLabel(this);
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_log = new QPlainTextEdit(this);
  m_log->setReadOnly(true);
  m_log->setMaximumBlockCount(5000);
  m_log->setPlaceholderText(tr("The compiler's and runtime's log appears here."));
  m_log->setFont(QFont(QStringLiteral("monospace")));

  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_compile);
  buttons->addWidget(m_run);
  buttons->addWidget(m_cancel);
  buttons->addWidget(m_progress, 1);

  auto* forms = new QWidget;
  auto* formsLayout = new QVBoxLayout(forms);
  formsLayout->addWidget(m_source);
  formsLayout->addWidget(buildModelForm());
  formsLayout->addWidget(buildRunForm());
  formsLayout->addStretch(1);
  auto* scroll = new QScrollArea;
  scroll->setWidget(forms);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);

  auto* right = new QWidget;
  auto* rightLayout = new QVBoxLayout(right);
  rightLayout->setContentsMargins(0, 0, 0, 0);
  rightLayout->addLayout(buttons);
  rightLayout->addWidget(m_status);
  rightLayout->addWidget(new QLabel(tr("Log:")));
  rightLayout->addWidget(m_log, 1);

  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(scroll);
  split->addWidget(right);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  split->setSizes({640, 760});  // the form with experimental options needs ~620 px
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(split);

  connect(LogForwarder::instance(), &LogForwarder::lineLogged, this, &CompilePanel::appendLog, Qt::QueuedConnection);
  connect(m_compile, &QPushButton::clicked, this, &CompilePanel::requestCompile);
  connect(m_run, &QPushButton::clicked, this, &CompilePanel::requestRun);
  connect(m_cancel, &QPushButton::clicked, this, &CompilePanel::requestCancel);
}

QWidget* CompilePanel::buildModelForm() {
  auto* box = new QGroupBox(tr("Compile"));
  auto* form = new QFormLayout(box);
  addModelRows(form);
  addTrainingRows(form);
  addScaleRows(form);
  addExperimentalRows(form);
  return box;
}

// What to compile and where the PEF goes.
void CompilePanel::addModelRows(QFormLayout* form) {
  m_model = new QComboBox;
  m_model->setEditable(true);
  for (const auto& name : frontend::zooModelNames()) m_model->addItem(fromStd(name));
  m_model->setToolTip(tr("A model from the zoo, or the path of an .onnx or .dfir file"));
  auto* browseModel = new QPushButton(tr("Browse..."));
  connect(browseModel, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open model"), {},
                                                      tr("Models (*.dfir *.onnx);;All files (*)"));
    if (!path.isEmpty()) m_model->setCurrentText(path);
  });
  form->addRow(tr("&Model:"), withBrowse(m_model, browseModel));

  m_pefName = new QLineEdit;
  m_pefName->setPlaceholderText(tr("default: the model name"));
  form->addRow(tr("&PEF name:"), m_pefName);

  m_outputFolder = new QLineEdit;
  m_outputFolder->setPlaceholderText(tr("default: ./out/<PEF name>"));
  auto* browseOut = new QPushButton(tr("Browse..."));
  connect(browseOut, &QPushButton::clicked, this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Output folder"), m_outputFolder->text());
    if (!dir.isEmpty()) m_outputFolder->setText(dir);
  });
  form->addRow(tr("&Output folder:"), withBrowse(m_outputFolder, browseOut));
}

// Mode, batch, level, arch and the training choices (off for inference).
void CompilePanel::addTrainingRows(QFormLayout* form) {
  m_inference = new QCheckBox(tr("Inference only (no loss, gradients or optimizer)"));
  form->addRow(tr("Mode:"), m_inference);

  m_batch = new QSpinBox;
  m_batch->setRange(1, 1 << 20);
  m_batch->setValue(32);
  form->addRow(tr("&Batch size:"), m_batch);

  m_inputShapes = new QPlainTextEdit;
  m_inputShapes->setPlaceholderText(tr("ONNX models: NAME=1x3x640x640, one per line or comma-separated"));
  m_inputShapes->setToolTip(
      tr("--input-shape: the shape of each named input; a named dynamic dimension it binds "
         "applies to every input"));
  m_inputShapes->setTabChangesFocus(true);
  m_inputShapes->setFixedHeight(m_inputShapes->fontMetrics().lineSpacing() * 3 + 12);
  form->addRow(tr("Input s&hapes:"), m_inputShapes);

  m_optLevel = new QComboBox;
  m_optLevel->addItem(tr("o0: one section per operator"), QStringLiteral("o0"));
  m_optLevel->addItem(tr("o1: fuse by rule list"), QStringLiteral("o1"));
  m_optLevel->addItem(tr("o3: fuse whole layers"), QStringLiteral("o3"));
  m_optLevel->setCurrentIndex(2);
  form->addRow(tr("Optimization &level:"), m_optLevel);

  m_arch = new QComboBox;
  m_arch->setEditable(true);
  m_arch->addItem(QStringLiteral("native"));
  for (const auto& name : arch::archPresetNames()) m_arch->addItem(fromStd(name));
  m_arch->setToolTip(tr("An arch preset, \"native\" (%1) or the path of an arch YAML file").arg(fromStd(arch::defaultArchName())));
  auto* browseArch = new QPushButton(tr("Browse..."));
  connect(browseArch, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Arch file"), {}, tr("Arch YAML (*.yaml *.yml)"));
    if (!path.isEmpty()) m_arch->setCurrentText(path);
  });
  form->addRow(tr("&Arch:"), withBrowse(m_arch, browseArch));

  m_optimizer = new QComboBox;
  m_optimizer->addItem(tr("momentum"), QStringLiteral("momentum"));
  m_optimizer->addItem(tr("sgd"), QStringLiteral("sgd"));
  m_optimizer->addItem(tr("adam"), QStringLiteral("adam"));
  form->addRow(tr("Optimi&zer:"), m_optimizer);

  m_lr = new QDoubleSpinBox;
  m_lr->setDecimals(6);
  m_lr->setRange(0.000001, 10.0);  // the compile refuses a learning rate <= 0
  m_lr->setSingleStep(0.001);
  m_lr->setValue(0.01);
  form->addRow(tr("Learning &rate:"), m_lr);

  m_seed = new QSpinBox;
  m_seed->setRange(0, INT_MAX);
  m_seed->setValue(42);
  form->addRow(tr("&Seed (weights):"), m_seed);
  connect(m_inference, &QCheckBox::toggled, this, [this](bool on) {
    m_optimizer->setEnabled(!on);
    m_lr->setEnabled(!on);
    // Inference splits tensor parallel over up to a 16-socket rack; training maps onto up to 8 chips.
    m_nChips->setMaximum(on ? arch::kMaxInferenceChips : arch::kMaxTrainingChips);
  });
}

// Hypersections, chips and the model's size are everyday choices: in the form.
void CompilePanel::addScaleRows(QFormLayout* form) {
  m_hypersection = new QCheckBox(tr("Compile each layer once and reuse it (--enable-hypersection, -o3)"));
  form->addRow(tr("&Hypersections:"), m_hypersection);
  m_modelParams = new QLineEdit;
  m_modelParams->setPlaceholderText(tr("zoo model sizes, e.g. num_layers=2 hidden_size=64"));
  m_modelParams->setToolTip(tr("Layers and sizes of a zoo model: num_layers, hidden_size, num_heads, seq_len, vocab_size"));
  form->addRow(tr("Layers and si&zes:"), m_modelParams);
  m_nChips = new QSpinBox;
  m_nChips->setRange(1, arch::kMaxTrainingChips);
  m_nChips->setToolTip(tr("--n-chips: up to %1 for training, %2 for inference (tensor parallel)")
                           .arg(arch::kMaxTrainingChips)
                           .arg(arch::kMaxInferenceChips));
  form->addRow(tr("C&hips:"), m_nChips);
  m_numTiles = new QComboBox;
  m_numTiles->addItem(tr("all"), 0);
  for (int tiles : {1, 2, 4, 8}) m_numTiles->addItem(QString::number(tiles), tiles);
  form->addRow(tr("&Tiles per chip:"), m_numTiles);
}

// The experimental options, hidden until asked for.
void CompilePanel::addExperimentalRows(QFormLayout* form) {
  m_showExperimental = new QCheckBox(tr("Show e&xperimental options"));
  form->addRow(QString(), m_showExperimental);
  m_experimental = new QGroupBox(tr("Experimental"));
  auto* exp = new QFormLayout(m_experimental);
  m_debug = new QCheckBox(tr("Dump the IR after each stage into the output folder"));
  exp->addRow(tr("Debug:"), m_debug);
  m_o1Rules = new QComboBox;
  m_o1Rules->setEditable(true);
  m_o1Rules->addItem(QStringLiteral("default"));
  m_o1Rules->setToolTip(tr("Fusion rule list for -o1: a built-in name or a YAML file"));
  auto* browseRules = new QPushButton(tr("Browse..."));
  connect(browseRules, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Fusion rule list"), {}, tr("Rule lists (*.yaml *.yml)"));
    if (!path.isEmpty()) m_o1Rules->setCurrentText(path);
  });
  exp->addRow(tr("-o1 &rule list:"), withBrowse(m_o1Rules, browseRules));
  m_scaling = new QLineEdit;
  m_scaling->setPlaceholderText(tr("3 or 4 factors, e.g. 1 0.8 0.5 (default: all 1)"));
  exp->addRow(tr("Resource &scaling factors:"), m_scaling);
  m_experimental->setVisible(false);
  form->addRow(m_experimental);
  connect(m_showExperimental, &QCheckBox::toggled, m_experimental, &QWidget::setVisible);
}

QWidget* CompilePanel::buildRunForm() {
  auto* box = new QGroupBox(tr("Run"));
  auto* form = new QFormLayout(box);
  m_runPef = new QLineEdit;
  m_runPef->setPlaceholderText(tr("the PEF just compiled"));
  auto* browse = new QPushButton(tr("Browse..."));
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("PEF to run"), {}, tr("PEF files (*.pef);;All files (*)"));
    if (!path.isEmpty()) m_runPef->setText(path);
  });
  form->addRow(tr("P&EF:"), withBrowse(m_runPef, browse));
  m_epochs = new QSpinBox;
  m_epochs->setRange(1, 1000);
  form->addRow(tr("&Epochs:"), m_epochs);
  m_trainLimit = new QSpinBox;
  m_trainLimit->setRange(0, INT_MAX);
  m_trainLimit->setSpecialValueText(tr("all"));
  form->addRow(tr("Training samples:"), m_trainLimit);
  m_testLimit = new QSpinBox;
  m_testLimit->setRange(0, INT_MAX);
  m_testLimit->setSpecialValueText(tr("all"));
  form->addRow(tr("Test samples:"), m_testLimit);
  m_dataFolder = new QLineEdit(fromStd(driver::RunOptions{}.dataFolder));
  m_dataFolder->setPlaceholderText(tr("default: the model's dataset"));
  form->addRow(tr("&Data folder:"), m_dataFolder);
  m_runInputs = new RunInputsForm;
  form->addRow(m_runInputs);
  connect(m_runInputs, &QGroupBox::toggled, this, [this](bool on) {  // the data set's fields mean nothing then
    for (QWidget* w : std::initializer_list<QWidget*>{m_epochs, m_trainLimit, m_testLimit, m_dataFolder})
      w->setEnabled(!on);
  });
  connect(m_runPef, &QLineEdit::textChanged, this,
          [this](const QString& text) { m_runInputs->setPef(text.trimmed().isEmpty() ? m_lastPef : text.trimmed()); });
  return box;
}

Expected<driver::CompileOptions> CompilePanel::compileOptions() const {
  driver::CompileOptions o;
  o.model = m_model->currentText().trimmed().toStdString();
  o.pefName = m_pefName->text().trimmed().toStdString();
  o.outputFolder = m_outputFolder->text().trimmed().toStdString();
  o.inference = m_inference->isChecked();
  o.batchSize = m_batch->value();
  if (auto level = driver::parseOptLevel(m_optLevel->currentData().toString().toStdString())) o.level = *level;
  o.arch = m_arch->currentText().trimmed().toStdString();
  o.optimizer = m_optimizer->currentData().toString().toStdString();
  o.learningRate = m_lr->value();
  o.seed = static_cast<uint64_t>(m_seed->value());
  o.debug = m_debug->isChecked();
  if (o.level == partition::OptLevel::O1) {  // the rule list means nothing at the other levels
    o.o1RuleList = m_o1Rules->currentText().trimmed().toStdString();
    if (o.o1RuleList.empty()) o.o1RuleList = "default";
  }
  o.enableHypersection = m_hypersection->isChecked();
  o.nChips = m_nChips->value();
  o.numTiles = m_numTiles->currentData().toInt();
  for (const QString& f : m_scaling->text().split(QRegularExpression(QStringLiteral("[\\s,]+")), Qt::SkipEmptyParts))
    o.scalingFactors.push_back(f.toStdString());
  for (const QString& shape :
       m_inputShapes->toPlainText().split(QRegularExpression(QStringLiteral("[\\s,]+")), Qt::SkipEmptyParts))
    o.inputShapes.push_back(shape.toStdString());
  auto params = parseModelParams(m_modelParams->text());
  if (!params) return params.error();
  o.modelParams = std::move(*params);
  o.dbPath = m_dbPath.toStdString();
  return o;
}

driver::RunOptions CompilePanel::runOptions() const {
  driver::RunOptions o;
  o.pefPath = (m_runPef->text().trimmed().isEmpty() ? m_lastPef : m_runPef->text().trimmed()).toStdString();
  o.epochs = m_epochs->value();
  o.trainLimit = m_trainLimit->value();
  o.testLimit = m_testLimit->value();
  o.dataFolder = m_dataFolder->text().trimmed().toStdString();
  o.inference = m_inference->isChecked();
  o.dbPath = m_dbPath.toStdString();
  if (m_runInputs->isChecked()) {  // one forward step on the inputs chosen, no data set
    o.inputs = m_runInputs->bindings();
    o.inference = true;
    o.outputDir = m_runInputs->outputDir().toStdString();
    o.seed = m_runInputs->seed();
  }
  return o;
}

void CompilePanel::setOptions(const driver::CompileOptions& o, const QString& from) {
  m_model->setCurrentText(fromStd(o.model));
  m_pefName->setText(fromStd(o.pefName));
  m_outputFolder->setText(fromStd(o.outputFolder));
  m_inference->setChecked(o.inference);
  m_batch->setValue(static_cast<int>(o.batchSize));
  m_optLevel->setCurrentIndex(m_optLevel->findData(fromStd(std::string(partition::optLevelName(o.level)))));
  m_arch->setCurrentText(fromStd(o.arch));
  if (const int i = m_optimizer->findData(fromStd(o.optimizer)); i >= 0) m_optimizer->setCurrentIndex(i);
  m_lr->setValue(o.learningRate);
  m_seed->setValue(static_cast<int>(std::min<uint64_t>(o.seed, INT_MAX)));
  m_debug->setChecked(o.debug);
  m_o1Rules->setCurrentText(o.o1RuleList.empty() ? QStringLiteral("default") : fromStd(o.o1RuleList));
  m_hypersection->setChecked(o.enableHypersection);
  m_nChips->setValue(o.nChips);
  if (const int i = m_numTiles->findData(o.numTiles); i >= 0) m_numTiles->setCurrentIndex(i);
  QStringList factors, params;
  for (const auto& f : o.scalingFactors) factors << fromStd(f);
  m_scaling->setText(factors.join(QLatin1Char(' ')));
  for (const auto& [name, value] : o.modelParams) params << QStringLiteral("%1=%2").arg(fromStd(name)).arg(value);
  m_modelParams->setText(params.join(QLatin1Char(' ')));
  QStringList shapes;
  for (const auto& shape : o.inputShapes) shapes << fromStd(shape);
  m_inputShapes->setPlainText(shapes.join(QLatin1Char('\n')));
  m_source->setText(from);
  m_source->setVisible(!from.isEmpty());
}

void CompilePanel::resetForModel(const QString& model) {
  driver::CompileOptions defaults;
  defaults.model = model.toStdString();
  setOptions(defaults, tr("A new compile of %1 with the default settings").arg(QFileInfo(model).fileName()));
}

Expected<std::map<std::string, int64_t>> CompilePanel::parseModelParams(const QString& text) {
  std::map<std::string, int64_t> params;
  for (const QString& entry : text.split(QRegularExpression(QStringLiteral("[\\s,]+")), Qt::SkipEmptyParts)) {
    const qsizetype eq = entry.indexOf(QLatin1Char('='));
    bool ok = false;
    const qlonglong value = eq > 0 ? entry.mid(eq + 1).toLongLong(&ok) : 0;
    if (!ok)
      return makeError(tr("Model parameter '%1': expected name=integer, e.g. num_layers=2").arg(entry).toStdString());
    params[entry.left(eq).toStdString()] = value;
  }
  return params;
}

void CompilePanel::requestCompile() {
  auto options = compileOptions();
  if (!options) return reportError(fromStd(options.error().message()));
  m_cancelRequested = false;
  emit compileRequested(*options);  // the Session validates them and records toArgs()
}

void CompilePanel::requestRun() {
  if (m_runInputs->isChecked() && m_runInputs->bindings().empty())
    return reportError(tr("No inputs to run on: %1").arg(m_runInputs->noteLabel()->text()));
  m_cancelRequested = false;
  emit runRequested(runOptions());
}

void CompilePanel::requestCancel() {
  if (!m_cancel->isEnabled()) return;  // nothing runs
  m_cancelRequested = true;
  m_status->setText(tr("Cancelling..."));
  emit cancelRequested();
}

void CompilePanel::setBusy(bool busy) {
  m_compile->setEnabled(!busy);
  m_run->setEnabled(!busy);
  m_cancel->setEnabled(busy);
}

void CompilePanel::showStarted(const QString& what) {
  m_status->setText(what);
  m_progress->setRange(0, 0);  // busy until the first progress report
}

// The bar follows the stages' weights (placement takes most of a big compile), the text the stage.
void CompilePanel::showProgress(const QString& stage, int index, int total, double fraction) {
  m_progress->setRange(0, kProgressSteps);
  m_progress->setValue(static_cast<int>(fraction * kProgressSteps));
  m_progress->setFormat(tr("%1 (%2/%3)").arg(stage).arg(index + 1).arg(total));
}

void CompilePanel::showFinished(bool ok, const QString& message) {
  m_progress->setRange(0, 1);
  m_progress->setValue(ok ? 1 : 0);
  m_progress->setFormat(ok ? tr("done") : m_cancelRequested ? tr("cancelled") : tr("failed"));
  if (ok) m_status->setText(message);
  else reportError(message);
}

void CompilePanel::showCompileFinished(bool ok, const QString& pefPath, const QString& message) {
  if (ok) {
    m_lastPef = pefPath;
    m_runPef->setText(pefPath);
    m_runInputs->setPef(pefPath);
  }
  showFinished(ok, message);
}

void CompilePanel::showRunFinished(bool ok, const QString&, const QString& message) { showFinished(ok, message); }

void CompilePanel::reportError(const QString& message) {
  m_status->setText(QStringLiteral("<span style='color:#b00020'>%1</span>").arg(message.toHtmlEscaped()));
  appendLog(QStringLiteral("error"), message);
}

void CompilePanel::appendLog(const QString& level, const QString& text) {
  const QString line = level == QLatin1String("info") ? text : QStringLiteral("[%1] %2").arg(level, text);
  m_log->appendPlainText(line);
}

}  // namespace dfc::views
