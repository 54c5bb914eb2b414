#pragma once
// The Compile screen's "Inputs" box: run an inference PEF of any model once
// on inputs the user picks (`dfc run --inference --input NAME=FILE|random`)
// instead of a data set. One row per graph input of the PEF (its name and
// type, a .npy/.pb file or "random", a Browse button), the seed of the random
// ones and a folder for the outputs (--output-dir).
#include <QGroupBox>
#include <vector>

#include "driver/run/RunInputs.h"

class QFormLayout;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace dfc::views {

class RunInputsForm : public QGroupBox {
  Q_OBJECT

 public:
  explicit RunInputsForm(QWidget* parent = nullptr);

  // The PEF the Run button runs: its graph inputs become the rows (read when
  // the box is checked, or checked later). A PEF that cannot be read says so.
  void setPef(const QString& pefPath);
  // Checked: the run binds these inputs (every row; an empty row is random).
  std::vector<driver::InputBinding> bindings() const;
  QString outputDir() const;
  uint64_t seed() const;

  // For tests: the row of input `name` (null if the PEF has none such).
  QLineEdit* sourceEdit(const QString& name) const;
  QLineEdit* outputDirEdit() const { return m_outputDir; }
  QSpinBox* seedBox() const { return m_seed; }
  QLabel* noteLabel() const { return m_note; }

 private:
  void loadRows();
  void clearRows();

  QString m_pef, m_loadedPef;
  QFormLayout* m_rows = nullptr;
  std::vector<std::pair<QString, QLineEdit*>> m_sources;  // per graph input, in the graph's order
  QLabel* m_note = nullptr;
  QSpinBox* m_seed = nullptr;
  QLineEdit* m_outputDir = nullptr;
};

}  // namespace dfc::views
