#include "graph/GraphLayoutWorker.h"

#include "graph/DotLayout.h"

namespace dfc::views {

GraphLayoutWorker::GraphLayoutWorker(std::shared_ptr<const std::atomic<quint64>> latest)
    : m_latest(std::move(latest)) {}

GraphLayoutWorker::~GraphLayoutWorker() = default;

void GraphLayoutWorker::layout(quint64 generation, const GraphData& data) {
  if (generation < m_latest->load()) return;  // stale: a newer request is queued
  // One context for the process, created and used only on the layout thread
  // (all workers share it); it lives until exit.
  static GVC_t* gvc = gvContext();
  GraphLayout result = runDotLayout(gvc, data);
  result.generation = generation;
  emit finished(result);
}

}  // namespace dfc::views
