#pragma once
// Lives on the layout thread and owns the one GVC_t context of the process.
#include <QObject>
#include <atomic>
#include <memory>

#include "graph/GraphData.h"
#include "graph/GraphLayout.h"



namespace dfc::views {

class GraphLayoutWorker : public QObject {
  Q_OBJECT

 public:
  explicit GraphLayoutWorker(std::shared_ptr<const std::atomic<quint64>> latest);
  ~GraphLayoutWorker() override;

  // Runs on the worker thread (invoked queued). Skips requests already
  // superseded by a newer generation, so a burst of requests lays out once.
  void layout(quint64 generation, const GraphData& data);

 signals:
  void finished(const dfc::views::GraphLayout& layout);

 private:
  std::shared_ptr<const std::atomic<quint64>> m_latest;
};

}  // namespace dfc::views
