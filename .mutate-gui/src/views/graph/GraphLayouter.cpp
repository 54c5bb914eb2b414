#include "graph/GraphLayouter.h"

#include <QCoreApplication>
#include <QThread>
#include <limits>

#include "graph/GraphLayoutWorker.h"

namespace dfc::views {
namespace {

// Graphviz keeps global state: two dot runs at once (two GraphViews, as in
// the side-by-side screen) crash it. So every layouter's worker lives on one
// process-wide thread, which stops when the application quits.
QThread* sharedLayoutThread() {
  static QThread* thread = [] {
    auto* t = new QThread;
    t->setObjectName(QStringLiteral("graph-layout"));
    t->start();
    qAddPostRoutine([] {
      QThread* self = sharedLayoutThread();
      self->quit();
      self->wait();
    });
    return t;
  }();
  return thread;
}

}  // namespace

GraphLayouter::GraphLayouter(QObject* parent)
    : QObject(parent), m_latest(std::make_shared<std::atomic<quint64>>(0)) {
  qRegisterMetaType<dfc::views::SharedGraphLayout>();
  m_thread = sharedLayoutThread();
  m_worker = new GraphLayoutWorker(m_latest);
  m_worker->moveToThread(m_thread);
  connect(m_worker, &GraphLayoutWorker::finished, this, &GraphLayouter::onWorkerFinished,
          Qt::QueuedConnection);
  connect(
      m_worker, &GraphLayoutWorker::progress, this,
      [this](quint64 generation, int done, int total) {
        if (generation == m_latest->load()) emit layoutProgress(done, total);
      },
      Qt::QueuedConnection);
}

GraphLayouter::~GraphLayouter() {
  // Queued requests become stale; the worker is deleted on its thread after
  // them (a running dot finishes first; its result finds no receiver).
  m_latest->store(std::numeric_limits<quint64>::max());
  m_worker->deleteLater();
}

quint64 GraphLayouter::requestLayout(std::shared_ptr<const GraphData> data) {
  return requestBuildAndLayout([data = std::move(data)] { return data; });
}

quint64 GraphLayouter::requestBuildAndLayout(GraphSource source) {
  const quint64 generation = m_latest->load() + 1;
  m_latest->store(generation);
  m_busy = true;
  GraphLayoutWorker* worker = m_worker;
  QMetaObject::invokeMethod(
      m_worker, [worker, generation, source = std::move(source)] { worker->layout(generation, source); },
      Qt::QueuedConnection);
  return generation;
}

void GraphLayouter::cancel() {
  m_latest->store(m_latest->load() + 1);  // the running request sees it is stale and stops
  m_busy = false;
}

void GraphLayouter::onWorkerFinished(const SharedGraphLayout& layout) {
  if (layout->generation != m_latest->load()) return;  // superseded while running
  m_busy = false;
  emit layoutReady(layout);
}

}  // namespace dfc::views
