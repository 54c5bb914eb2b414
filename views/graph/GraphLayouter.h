#pragma once
// Lays out graphs with Graphviz dot on one dedicated thread. Each request gets
// a generation number; only the newest request's result is emitted.
#include <QObject>
#include <atomic>
#include <memory>

#include "graph/GraphData.h"
#include "graph/GraphLayout.h"

class QThread;

namespace dfc::views {

class GraphLayoutWorker;

class GraphLayouter : public QObject {
  Q_OBJECT

 public:
  explicit GraphLayouter(QObject* parent = nullptr);
  ~GraphLayouter() override;

  // Returns the request's generation; earlier pending requests become stale.
  quint64 requestLayout(GraphData data);
  quint64 latestGeneration() const { return m_latest->load(); }
  bool isBusy() const { return m_busy; }
  // The one thread all layouters share (Graphviz must never run twice at once).
  const QThread* layoutThread() const { return m_thread; }

 signals:
  void layoutReady(const dfc::views::GraphLayout& layout);

 private:
  void onWorkerFinished(const GraphLayout& layout);

  std::shared_ptr<std::atomic<quint64>> m_latest;
  QThread* m_thread = nullptr;
  GraphLayoutWorker* m_worker = nullptr;
  bool m_busy = false;
};

}  // namespace dfc::views
