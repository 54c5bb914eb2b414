#pragma once
// The Memory screen: bytes resident per tier over one step's section calls
// (MemoryChart), a tier picker, and the tensors live at the tier's peak (or
// at a clicked call), largest first. Picking a tensor shades its lifetime and
// asks the window to select the operator that makes it.
#include <QWidget>

#include "memory/MemoryData.h"

class QComboBox;
class QLabel;
class QTableWidget;
class QToolButton;

namespace dfc::views {

class MemoryChart;

class MemoryPanel : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kMaxRows = 500;  // a 7B model holds thousands at its peak: the largest are what matter

  explicit MemoryPanel(QWidget* parent = nullptr);
  void setData(MemoryViewData data);
  void clear() { setData({}); }
  const MemoryViewData& data() const { return m_data; }
  void setTier(MemTier tier);
  MemTier tier() const;
  // Lists the tensors of the tier live at `call` (-1: at its peak).
  void showCall(int call);
  int shownCall() const { return m_call; }
  MemoryChart* chart() const { return m_chart; }
  QTableWidget* table() const { return m_table; }
  QLabel* summaryLabel() const { return m_summary; }
  // Indices into data().timeline.tensors, in table order.
  const std::vector<size_t>& listedTensors() const { return m_listed; }
  void activateRow(int row);
  bool exportCsv(const QString& path, QString* error) const;
  bool exportPicture(const QString& path, QString* error) const;  // .svg or .png

 signals:
  // A tensor picked in the list: the operator making it (kNoNode for an input or a weight) and its section.
  void tensorActivated(int producerNode, int section, const QString& tensor);

 private:
  void fillTable();
  void updateSummary();
  QToolButton* makeExportButton();

  MemoryViewData m_data;
  MemoryChart* m_chart = nullptr;
  QComboBox* m_tier = nullptr;
  QLabel* m_summary = nullptr;
  QLabel* m_listTitle = nullptr;
  QTableWidget* m_table = nullptr;
  std::vector<size_t> m_listed;
  int m_call = -1;
};

}  // namespace dfc::views
