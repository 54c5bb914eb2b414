#pragma once
// The Chip screen: a section selector (the step's heat map first, then every
// section of the step), the placed chip of the chosen section's bitfile
// (chip/ChipCanvas.h), a legend of its ops and link loads, and export of the
// picture as SVG or PNG. The models are built from the PEF when a section is
// chosen (analysis/ChipModel.h): opening the screen costs one bitfile.
#include <QWidget>
#include <memory>

#include "analysis/ChipModel.h"
#include "pef/Pef.h"

class QComboBox;
class QLabel;
class QPushButton;

namespace dfc::views {

class ChipCanvas;

class ChipPanel : public QWidget {
  Q_OBJECT

 public:
  explicit ChipPanel(QWidget* parent = nullptr);
  // The PEF's sections; shows the section with the most units.
  void setPef(std::shared_ptr<const pef::Pef> pef);
  void clear();
  // A section by name, or "step" for the heat map; false when there is no such section.
  bool showSection(const QString& name);
  // Shows a model as it is (no PEF needed).
  void setModel(analysis::ChipModel model);
  bool exportSvg(const QString& path, QString* error);
  bool exportPng(const QString& path, QString* error);

  ChipCanvas* canvas() const { return m_canvas; }
  QComboBox* sectionBox() const { return m_sections; }
  QLabel* summaryLabel() const { return m_summary; }
  QLabel* legendLabel() const { return m_legend; }

 private:
  void onSectionChosen(int index);
  void describe(const analysis::ChipModel& model);
  void exportAs(const QString& format);
  QSize exportSize() const;

  std::shared_ptr<const pef::Pef> m_pef;
  ChipCanvas* m_canvas = nullptr;
  QComboBox* m_sections = nullptr;
  QLabel* m_summary = nullptr;
  QLabel* m_legend = nullptr;
  QPushButton* m_svg = nullptr;
  QPushButton* m_png = nullptr;
};

}  // namespace dfc::views
