#pragma once
// Asks where "Recompile with decisions" writes: the decisions file (the
// --mac-human-decision YAML) and the new PEF. Both start at the suggestion
// (beside the open PEF the first time, then in the folders last chosen);
// each has a Browse... button.
#include <QDialog>
#include <QString>

class QLineEdit;

namespace dfc::studio {

struct RecompileTargets {
  QString decisionsPath;  // .../lenet_decisions.yaml
  QString pefPath;        // .../lenet_decided/lenet_decided.pef
};

class RecompileDialog : public QDialog {
  Q_OBJECT

 public:
  RecompileDialog(const RecompileTargets& suggested, int decisions, QWidget* parent = nullptr);
  RecompileTargets targets() const;
  QLineEdit* decisionsEdit() const { return m_decisions; }
  QLineEdit* pefEdit() const { return m_pef; }

 private:
  QLineEdit* m_decisions = nullptr;
  QLineEdit* m_pef = nullptr;
};

}  // namespace dfc::studio
