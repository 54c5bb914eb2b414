#include "graph/GraphLayouter.h"

#include <QThread>
#include <limits>

#include "graph/GraphLayoutWorker.h"

namespace dfc::views {

GraphLayouter::GraphLayouter(QObject* parent)
    : QObject(parent), m_latest(std::make_shared<std::atomic<quint64>>(0)) {
  qRegisterMetaType<dfc::views::GraphLayout>();
  m_thread = new QThread(this);
  m_thread->setObjectName(QStringLiteral("graph-layout"));
  m_worker = new GraphLayoutWorker(m_latest);
  m_worker->moveToThread(m_thread);
  connect(m_worker, &GraphLayoutWorker::finished, this, &GraphLayouter::onWorkerFinished,
          Qt::QueuedConnection);
  m_thread->start();
}

GraphLayouter::~GraphLayouter() {
  // Make queued requests stale so shutdown does not wait for them.
  m_latest->store(std::numeric_limits<quint64>::max());
  m_thread->quit();
  m_thread->wait();
  delete m_worker;  // thread stopped: safe to free the GVC context here
}

quint64 GraphLayouter::requestLayout(GraphData data) {
  const quint64 generation = m_latest->load() + 1;
  m_latest->store(generation);
  m_busy = true;
  GraphLayoutWorker* worker = m_worker;
  QMetaObject::invokeMethod(
      m_worker, [worker, generation, data = std::move(data)] { worker->layout(generation, data); },
      Qt::QueuedConnection);
  return generation;
}

void GraphLayouter::onWorkerFinished(const GraphLayout& layout) {
  if (layout.generation != m_latest->load()) return;  // superseded while running
  m_busy = false;
  emit layoutReady(layout);
}

}  // namespace dfc::views
