#include "graph/GraphLayoutWorker.h"

#include "graph/HierarchicalLayout.h"

namespace dfc::views {

GraphLayoutWorker::GraphLayoutWorker(std::shared_ptr<const std::atomic<quint64>> latest)
    : m_latest(std::move(latest)) {}

GraphLayoutWorker::~GraphLayoutWorker() = default;

void GraphLayoutWorker::layout(quint64 generation, const GraphSource& source) {
  if (generation < m_latest->load()) return;  // stale: a newer request is queued
  const std::shared_ptr<const GraphData> data = source();
  if (generation < m_latest->load()) return;
  // One context for the process, created and used only on the layout thread
  // (all workers share it); it lives until exit.
  static GVC_t* gvc = gvContext();
  LayoutHooks hooks;
  hooks.cancelled = [this, generation] { return generation < m_latest->load(); };
  hooks.progress = [this, generation](int done, int total) { emit progress(generation, done, total); };
  auto result = std::make_shared<GraphLayout>(layoutHierarchically(*data, gvc, m_cache, hooks));
  if (result->cancelled) return;
  result->generation = generation;
  result->source = data;
  emit finished(result);
}

}  // namespace dfc::views
