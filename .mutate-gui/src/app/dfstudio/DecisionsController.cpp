#include "DecisionsController.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QDir>
#include <QMenu>
#include <QSettings>
#include <algorithm>

#include "CompileFlags.h"
#include "Session.h"
#include "graph/GraphView.h"
#include "support/FileUtil.h"

namespace dfc::studio {
namespace {

QString fromStd(const std::string& s) { return QString::fromStdString(s); }

constexpr const char* kDecidedSuffix = "_decided";

std::string withoutSuffix(std::string name) {
  const std::string suffix = kDecidedSuffix;
  if (name.size() > suffix.size() && name.ends_with(suffix)) name.resize(name.size() - suffix.size());
  return name;
}

}  // namespace

DecisionsController::DecisionsController(views::GraphView* view, Session* session, QString dbPath, QObject* parent)
    : QObject(parent), m_view(view), m_session(session), m_dbPath(std::move(dbPath)) {
  m_view->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(m_view, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
    QMenu* menu = buildMenu(m_view->nodeAtViewPos(pos), m_view);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->popup(m_view->viewport()->mapToGlobal(pos));
  });
  connect(m_session, &Session::compileFinished, this, &DecisionsController::onCompileFinished);
  m_chooser = [this](const RecompileTargets& suggested) -> std::optional<RecompileTargets> {
    RecompileDialog dialog(suggested, static_cast<int>(m_draft.decisions.size()), m_view->window());
    if (dialog.exec() != QDialog::Accepted) return std::nullopt;
    return dialog.targets();
  };
}

void DecisionsController::setPef(const QString& path, std::shared_ptr<const pef::Pef> pef) {
  const bool ours = !m_recompileTo.isEmpty() && QFileInfo(path) == QFileInfo(m_recompileTo);
  const bool keep = ours || (m_pef && pef && pef->meta.model == m_pef->meta.model && path == m_pefPath);
  m_pefPath = path;
  m_pef = std::move(pef);
  if (!keep) clear();
  updateMarks();
}

QList<int> DecisionsController::pickedNodes(int clickedNode) const {
  QList<int> nodes = m_view->highlightedNodes();
  if (clickedNode >= 0 && !nodes.contains(clickedNode)) nodes = {clickedNode};
  return nodes;
}

QMenu* DecisionsController::buildMenu(int clickedNode, QWidget* parent) {
  auto* menu = new QMenu(parent);
  const QList<int> nodes = pickedNodes(clickedNode);
  const bool havePef = m_pef != nullptr, picked = havePef && !nodes.isEmpty();
  auto add = [&](QMenu* to, const QString& text, const char* name, bool enabled, auto fn) {
    QAction* a = to->addAction(text);
    a->setObjectName(QString::fromLatin1(name));
    a->setEnabled(enabled);
    connect(a, &QAction::triggered, this, fn);
    return a;
  };
  add(menu, tr("Put %n node(s) in one section", nullptr, static_cast<int>(nodes.size())), "decisionTogether", picked,
      [this, nodes] { addDecisions(views::DecisionAction::Together, nodes); });
  add(menu, tr("Cut before %n node(s)", nullptr, static_cast<int>(nodes.size())), "decisionCut", picked,
      [this, nodes] { addDecisions(views::DecisionAction::CutBefore, nodes); });
  QMenu* chips = menu->addMenu(tr("Assign to chip"));
  chips->setEnabled(picked);
  for (int chip = 0; chip < kMenuChips; ++chip)
    add(chips, tr("Chip %1").arg(chip), QByteArray("decisionChip" + QByteArray::number(chip)).constData(), picked,
        [this, nodes, chip] { addDecisions(views::DecisionAction::AssignChip, nodes, chip); });
  menu->addSeparator();
  const bool haveDraft = !m_draft.empty();
  add(menu, tr("Save decisions (%n)...", nullptr, static_cast<int>(m_draft.decisions.size())), "decisionSave", haveDraft,
      [this] {
        const QString path = QFileDialog::getSaveFileName(m_view, tr("Save decisions"), m_savedPath,
                                                          tr("Decisions files (*.yaml);;All files (*)"));
        QString error;
        if (!path.isEmpty() && !save(path, &error)) emit message(error);
      });
  add(menu, tr("Recompile with decisions..."), "decisionRecompile", haveDraft && havePef && !m_session->isBusy(),
      [this] { recompile(); });
  add(menu, tr("Clear decisions"), "decisionClear", haveDraft, [this] { clear(); });
  return menu;
}

void DecisionsController::addDecisions(views::DecisionAction action, const QList<int>& nodes, int chip) {
  if (!m_pef) return;
  auto added = views::decisionsForNodes(m_view->graph(), m_pef->graph, nodes, action, chip);
  if (added.empty()) return;
  for (auto& d : added) {
    d.line = static_cast<int>(m_draft.decisions.size()) + 1;
    m_draft.decisions.push_back(std::move(d));
  }
  m_savedPath.clear();
  updateMarks();
  emit message(tr("%n decision(s) for the next compile: %1", nullptr, static_cast<int>(m_draft.decisions.size()))
                   .arg(fromStd(std::string(mapping::decisionKindName(m_draft.decisions.back().kind))) + " " +
                        fromStd(mapping::patternText(m_draft.decisions.back()))));
}

void DecisionsController::clear() {
  m_draft.decisions.clear();
  m_savedPath.clear();
  updateMarks();
}

void DecisionsController::updateMarks() {
  std::map<ir::NodeId, QString> notes;
  if (m_pef)
    for (const mapping::Decision& d : m_draft.decisions) {
      QString what = fromStd(std::string(mapping::decisionKindName(d.kind))).replace(QLatin1Char('_'), QLatin1Char(' '));
      if (d.kind == mapping::DecisionKind::Chip) what += QStringLiteral(" %1").arg(d.chip);
      for (ir::NodeId n : mapping::matchDecision(m_pef->graph, d)) {
        QString& note = notes[n];
        if (!note.split(QStringLiteral(", ")).contains(what)) note += (note.isEmpty() ? QString() : QStringLiteral(", ")) + what;
      }
    }
  m_view->setDecisionMarks(std::move(notes));
}

bool DecisionsController::save(const QString& path, QString* error) {
  const std::string header = "dfc compile --mac-human-decision " + QFileInfo(path).fileName().toStdString() +
                             "\nwritten by dfstudio from " + (m_pef ? m_pef->meta.pefName : std::string("?"));
  auto text = mapping::formatDecisions(m_draft, header);
  Status written = text ? support::writeFileAtomic(path.toStdString(), *text) : Status(text.error());
  if (!written) {
    if (error) *error = fromStd(written.error().message());
    return false;
  }
  m_savedPath = path;
  m_draft.path = path.toStdString();
  emit message(tr("Saved %n decision(s) to %1", nullptr, static_cast<int>(m_draft.decisions.size())).arg(path));
  return true;
}

Expected<driver::CompileOptions> DecisionsController::recompileOptions(const RecompileTargets& targets) const {
  const auto& args = m_pef->meta.args;
  if (args.size() < 2 || args[1] != "compile")
    return makeError(m_pefPath.toStdString() + ": the PEF does not record the command line it was compiled with");
  auto options = cli::parseCompileOptions({args.begin() + 2, args.end()});
  if (!options) return options.error().withContext(m_pefPath.toStdString());
  const QFileInfo pef(targets.pefPath);
  options->pefName = pef.completeBaseName().toStdString();
  options->outputFolder = pef.absolutePath().toStdString();
  options->macHumanDecision = targets.decisionsPath.toStdString();
  int chips = 0;
  for (const auto& d : m_draft.decisions) chips = std::max(chips, d.chip + 1);
  options->modelParallel = chips > 0;
  options->nChips = std::max(options->nChips, chips);
  options->dbPath = m_dbPath.toStdString();
  return options;
}

RecompileTargets DecisionsController::suggestedTargets() const {
  const QString base = m_pef ? fromStd(withoutSuffix(m_pef->meta.pefName)) : QStringLiteral("model");
  const QDir beside = QFileInfo(m_pefPath).dir();
  const QSettings settings;
  const QString decisionsDir = settings.value(QStringLiteral("decisions/decisionsFolder"), beside.absolutePath()).toString();
  // The new PEF in a folder of its own, as dfc compile makes one: <parent>/<name>_decided/<name>_decided.pef.
  const QString pefParent = settings.value(QStringLiteral("decisions/pefParentFolder"),
                                           QFileInfo(beside.absolutePath()).absolutePath()).toString();
  const QString decided = base + QString::fromLatin1(kDecidedSuffix);
  return {QDir(decisionsDir).filePath(base + QStringLiteral("_decisions.yaml")),
          QDir(QDir(pefParent).filePath(decided)).filePath(decided + QStringLiteral(".pef"))};
}

bool DecisionsController::recompile(QString* error) {
  if (!m_pef || m_draft.empty()) return recompileTo({}, error);  // says why
  const auto targets = m_chooser ? m_chooser(suggestedTargets()) : std::optional<RecompileTargets>(suggestedTargets());
  if (!targets) {
    if (error) *error = tr("Cancelled");
    return false;
  }
  return recompileTo(*targets, error);
}

bool DecisionsController::recompileTo(const RecompileTargets& targets, QString* error) {
  auto fail = [&](const QString& why) {
    if (error) *error = why;
    emit recompileFailed(why);
    return false;
  };
  if (!m_pef || m_draft.empty()) return fail(tr("Pick nodes and add decisions first."));
  if (m_session->isBusy()) return fail(tr("A compile or run is in progress; try again when it ends."));
  if (targets.decisionsPath.isEmpty() || !targets.pefPath.endsWith(QStringLiteral(".pef"), Qt::CaseInsensitive))
    return fail(tr("Give a decisions file and a new PEF (a path ending in .pef)."));
  QString why;
  if (!save(targets.decisionsPath, &why)) return fail(why);
  auto options = recompileOptions(targets);
  if (!options) return fail(fromStd(options.error().message()));
  QSettings settings;  // the next recompile suggests these folders
  settings.setValue(QStringLiteral("decisions/decisionsFolder"), QFileInfo(targets.decisionsPath).absolutePath());
  settings.setValue(QStringLiteral("decisions/pefParentFolder"), QFileInfo(QFileInfo(targets.pefPath).absolutePath()).absolutePath());
  m_recompileFrom = m_pefPath;
  m_recompileTo = QDir(fromStd(options->outputFolder)).filePath(fromStd(options->pefName) + QStringLiteral(".pef"));
  if (m_session->compile(*options)) return true;
  if (error) *error = m_lastFailure;  // the Session said why (compileFinished), and so did recompileFailed
  return false;
}

void DecisionsController::onCompileFinished(bool ok, const QString& pefPath, const QString& message) {
  if (m_recompileFrom.isEmpty()) return;  // not ours
  const QString before = m_recompileFrom;
  m_recompileFrom.clear();
  if (!ok) {
    m_lastFailure = message;
    return emit recompileFailed(message);
  }
  emit compareReady(before, pefPath);
}

}  // namespace dfc::studio
