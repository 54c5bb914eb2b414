#include "graph/GraphLayoutWorker.h"

#include "graph/DotLayout.h"

namespace dfc::views {

GraphLayoutWorker::GraphLayoutWorker(std::shared_ptr<const std::atomic<quint64>> latest)
    : m_latest(std::move(latest)) {}

GraphLayoutWorker::~GraphLayoutWorker() {
  if (m_gvc) gvFreeContext(m_gvc);
}

void GraphLayoutWorker::layout(quint64 generation, const GraphData& data) {
  if (generation < m_latest->load()) return;  // stale: a newer request is queued
  if (!m_gvc) m_gvc = gvContext();  // created on the layout thread, used only there
  GraphLayout result = runDotLayout(m_gvc, data);
  result.generation = generation;
  emit finished(result);
}

}  // namespace dfc::views
