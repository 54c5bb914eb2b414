#pragma once
// Lives on the layout thread and owns the one GVC_t context of the process
// and the cache of group layouts.
#include <QObject>
#include <atomic>
#include <functional>
#include <memory>

#include "graph/GraphData.h"
#include "graph/GraphLayout.h"
#include "graph/LayoutCache.h"

namespace dfc::views {

using SharedGraphLayout = std::shared_ptr<const GraphLayout>;
// Makes the graph to lay out; runs on the layout thread, so building a big
// graph's view data (a fold changed) does not hold up the UI either.
using GraphSource = std::function<std::shared_ptr<const GraphData>()>;

class GraphLayoutWorker : public QObject {
  Q_OBJECT

 public:
  explicit GraphLayoutWorker(std::shared_ptr<const std::atomic<quint64>> latest);
  ~GraphLayoutWorker() override;

  // Runs on the worker thread (invoked queued). Skips requests already
  // superseded by a newer generation, so a burst of requests lays out once,
  // and stops between two groups when a newer request (or a cancel) comes.
  void layout(quint64 generation, const GraphSource& source);

 signals:
  void finished(const dfc::views::SharedGraphLayout& layout);
  void progress(quint64 generation, int done, int total);

 private:
  std::shared_ptr<const std::atomic<quint64>> m_latest;
  LayoutCache m_cache;
};

}  // namespace dfc::views

Q_DECLARE_METATYPE(dfc::views::SharedGraphLayout)
