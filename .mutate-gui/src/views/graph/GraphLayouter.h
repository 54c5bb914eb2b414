#pragma once
// Lays out graphs on one dedicated thread (Graphviz, group by group). Each
// request gets a generation number; only the newest request's result and
// progress are emitted, and a newer request or a cancel stops an older one
// between two groups.
#include <QObject>
#include <atomic>
#include <memory>

#include "graph/GraphData.h"
#include "graph/GraphLayout.h"
#include "graph/GraphLayoutWorker.h"

class QThread;

namespace dfc::views {

class GraphLayouter : public QObject {
  Q_OBJECT

 public:
  explicit GraphLayouter(QObject* parent = nullptr);
  ~GraphLayouter() override;

  // Returns the request's generation; earlier pending requests become stale.
  quint64 requestLayout(std::shared_ptr<const GraphData> data);
  quint64 requestLayout(GraphData data) { return requestLayout(std::make_shared<const GraphData>(std::move(data))); }
  // The graph is built on the layout thread first (GraphLayout::source has it).
  quint64 requestBuildAndLayout(GraphSource source);
  // The pending request is dropped: nothing is emitted for it.
  void cancel();
  quint64 latestGeneration() const { return m_latest->load(); }
  bool isBusy() const { return m_busy; }
  // The one thread all layouters share (Graphviz must never run twice at once).
  const QThread* layoutThread() const { return m_thread; }

 signals:
  void layoutReady(const dfc::views::SharedGraphLayout& layout);
  void layoutProgress(int done, int total);

 private:
  void onWorkerFinished(const SharedGraphLayout& layout);

  std::shared_ptr<std::atomic<quint64>> m_latest;
  QThread* m_thread = nullptr;
  GraphLayoutWorker* m_worker = nullptr;
  bool m_busy = false;
};

}  // namespace dfc::views
