#pragma once
// Steering the mapper from the Graph screen: nodes picked in the graph
// (Ctrl+click, a search or a legend pick; else the node right-clicked) become
// decisions through the graph's context menu ("Put in one section", "Cut
// before", "Assign to chip N"); the operators they name carry a badge in the
// graph until the next compile. "Save decisions..." writes them as a
// --mac-human-decision file and "Recompile with decisions..." asks where the
// decisions file and the new PEF go (remembering the folders), compiles the
// open PEF's model again with them (its recorded command line, through the
// Session), then asks for the two PEFs side by side on the Compare screen.
#include <QObject>
#include <QString>
#include <functional>
#include <memory>
#include <optional>

#include "RecompileDialog.h"
#include "driver/compile/CompileOptions.h"
#include "graph/GraphDecisions.h"
#include "pef/Pef.h"

class QMenu;
class QWidget;

namespace dfc::views {
class GraphView;
}

namespace dfc::studio {

class Session;

class DecisionsController : public QObject {
  Q_OBJECT

 public:
  static constexpr int kMenuChips = 4;  // "Assign to chip" offers chips 0..3
  // Asks where a recompile writes, from a suggestion; empty: cancelled.
  using TargetChooser = std::function<std::optional<RecompileTargets>(const RecompileTargets& suggested)>;

  DecisionsController(views::GraphView* view, Session* session, QString dbPath, QObject* parent = nullptr);

  // The PEF the graph shows. Another model's PEF starts a new draft; the
  // PEF a recompile made keeps it, so decisions can be added and tried again.
  void setPef(const QString& path, std::shared_ptr<const pef::Pef> pef);
  // The graph's context menu for a right-click on `clickedNode` (-1: none).
  QMenu* buildMenu(int clickedNode, QWidget* parent);
  // What an action applies to: the highlighted nodes, or the clicked one when it is not among them.
  QList<int> pickedNodes(int clickedNode) const;
  void addDecisions(views::DecisionAction action, const QList<int>& nodes, int chip = 0);
  void clear();
  const mapping::DecisionFile& draft() const { return m_draft; }

  bool save(const QString& path, QString* error = nullptr);
  // Where a recompile would write: in the folders chosen last time (QSettings),
  // else beside the open PEF; named after its model.
  RecompileTargets suggestedTargets() const;
  // The dialog by default; tests answer without one.
  void setTargetChooser(TargetChooser chooser) { m_chooser = std::move(chooser); }
  // Asks where to write (the chooser), then recompileTo; false when cancelled.
  bool recompile(QString* error = nullptr);
  // Saves the draft to targets.decisionsPath and compiles the model into
  // targets.pefPath; a failure to start is also signalled (recompileFailed).
  bool recompileTo(const RecompileTargets& targets, QString* error = nullptr);

 signals:
  void message(const QString& text);  // for the status bar
  // A recompile finished: show `before` and `after` side by side.
  void compareReady(const QString& beforePef, const QString& afterPef);
  void recompileFailed(const QString& message);

 private:
  Expected<driver::CompileOptions> recompileOptions(const RecompileTargets& targets) const;
  void updateMarks();  // the badges on the operators the draft names
  void onCompileFinished(bool ok, const QString& pefPath, const QString& message);

  views::GraphView* m_view = nullptr;
  Session* m_session = nullptr;
  QString m_dbPath;
  QString m_pefPath;
  std::shared_ptr<const pef::Pef> m_pef;
  mapping::DecisionFile m_draft;
  QString m_savedPath;      // where the draft was last saved ("" : not since it changed)
  QString m_recompileFrom;  // the PEF a running recompile started from ("" : none running)
  QString m_recompileTo;    // the PEF it writes
  QString m_lastFailure;    // why the last recompile failed
  TargetChooser m_chooser;
};

}  // namespace dfc::studio
