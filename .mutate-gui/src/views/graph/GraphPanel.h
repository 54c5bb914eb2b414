#pragma once
// The graph side of the Graph & Timeline screen: a colour-mode selector, fit
// and fold buttons and a search box above the GraphView, its legend beside it.
#include <QWidget>

#include "graph/GraphStyle.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QSplitter;
class QToolButton;

namespace dfc::views {
class GraphLegend;
class GraphView;
class LegendBox;
class SelectionState;
}  // namespace dfc::views

namespace dfc::views {

class GraphPanel : public QWidget {
  Q_OBJECT

 public:
  explicit GraphPanel(QWidget* parent = nullptr);

  views::GraphView* view() const { return m_view; }
  views::GraphLegend* legend() const;
  views::LegendBox* legendBox() const { return m_legend; }
  QComboBox* colorModeBox() const { return m_colorMode; }
  QLineEdit* searchBox() const { return m_search; }
  void focusSearch();                             // Ctrl+F
  void setColorMode(views::GraphColorMode mode);  // view and selector
  // Which colour modes have their data: an overlay of measured times needs a
  // run of the PEF. A mode without it is disabled in the selector, its
  // tooltip saying what is missing; one shown falls back to Cost.
  void updateModeAvailability();
  bool isModeAvailable(views::GraphColorMode mode) const;
  // The shared selection: its section is outlined in the graph, and a clicked
  // node selects its own section.
  void setSelectionState(views::SelectionState* selection);

 signals:
  // A legend entry was clicked: its key in the current colour mode.
  void legendKeyClicked(views::GraphColorMode mode, const QString& key);
  // The user chose a colour mode in the selector.
  void colorModeChosen(views::GraphColorMode mode);
  // Something the status bar should say (a mode fell back for want of data).
  void notice(const QString& text);

 private:
  void buildSplit();
  void search();

  views::GraphView* m_view = nullptr;
  views::LegendBox* m_legend = nullptr;
  QComboBox* m_colorMode = nullptr;
  QLineEdit* m_search = nullptr;
  QLabel* m_matches = nullptr;
  QSplitter* m_split = nullptr;
  bool m_settingMode = false;  // setColorMode, not the user, changes the selector
};

}  // namespace dfc::views
