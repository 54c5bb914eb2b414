#include "support/LatestJob.h"

#include <QThreadPool>
#include <mutex>

namespace dfc::views {

namespace detail {

// Shared by the tracker and its jobs. A worker posts only while holding the
// mutex and the tracker clears `tracker` under it before it dies, so a post
// never reaches a destroyed object; Qt drops events still queued for it.
// (A QPointer read on the worker thread could not promise that.)
struct JobRelay {
  std::mutex mutex;
  LatestJob* tracker = nullptr;

  void send(quint64 id, std::function<void()> fn, bool last) {
    const std::lock_guard lock(mutex);
    if (!tracker) return;
    LatestJob* target = tracker;
    QMetaObject::invokeMethod(
        target, [target, id, fn = std::move(fn), last] { target->receive(id, fn, last); }, Qt::QueuedConnection);
  }
};

}  // namespace detail

void JobContext::post(std::function<void()> fn) const {
  if (!isCancelled()) m_relay->send(m_id, std::move(fn), false);
}

void JobContext::finish(std::function<void()> deliver) const { m_relay->send(m_id, std::move(deliver), true); }

LatestJob::LatestJob(QObject* parent) : QObject(parent), m_relay(std::make_shared<detail::JobRelay>()) {
  m_relay->tracker = this;
}

LatestJob::~LatestJob() {
  {
    const std::lock_guard lock(m_relay->mutex);
    m_relay->tracker = nullptr;
  }
  if (m_cancel) m_cancel->store(true);
}

JobContext LatestJob::begin() {
  if (m_cancel) m_cancel->store(true);  // the older job stops early; its result is dropped anyway
  m_cancel = std::make_shared<std::atomic<bool>>(false);
  const quint64 id = ++m_latestId;
  m_running = true;
  if (!m_announcedBusy) {
    m_announcedBusy = true;
    emit busyChanged(true);
  }
  return JobContext(m_relay, m_cancel, id);
}

void LatestJob::dispatch(std::function<void()> work) {
  QThreadPool* pool = m_pool ? m_pool : QThreadPool::globalInstance();
  pool->start(std::move(work));
}

void LatestJob::cancel() {
  if (m_running && m_cancel) m_cancel->store(true);
}

void LatestJob::receive(quint64 id, const std::function<void()>& fn, bool last) {
  if (id != m_latestId) return;  // superseded
  if (!last) {
    fn();
    return;
  }
  m_running = false;
  fn();
  // `fn` may have started the next job on this tracker: then it stays busy.
  if (!m_running && m_announcedBusy) {
    m_announcedBusy = false;
    emit busyChanged(false);
  }
}

}  // namespace dfc::views
