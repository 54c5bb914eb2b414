#pragma once
// One background-job slot where the latest request wins (hotspot's JobTracker
// pattern). start() runs a job on a thread pool and hands its result to a
// deliver function on the tracker's thread. A newer start() supersedes the
// running job: its cancel flag is set and its result dropped. Once the tracker
// is destroyed (with the widget that owns it) nothing more is delivered.
// Jobs poll JobContext::isCancelled() and may post progress back.
#include <QObject>
#include <QString>
#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "support/Error.h"

class QThreadPool;

namespace dfc::views {

class LatestJob;

namespace detail {
struct JobRelay;

// What a job that threw delivers: an internal Error for Expected results, the
// same message in the `QString error` of a load struct (the owner shows either
// like any failure), else a default value. An exception must never leave a
// pool thread: Qt would terminate the whole app.
template <typename Result>
std::shared_ptr<Result> thrownResult(const std::string& what) {
  const std::string message = "internal error in a background job: " + what;
  if constexpr (std::is_constructible_v<Result, Error>) {
    return std::make_shared<Result>(internalError(message));
  } else {
    auto result = std::make_shared<Result>();
    if constexpr (requires { result->error = QString(); }) result->error = QString::fromStdString(message);
    return result;
  }
}
}  // namespace detail

// What a running job gets: its cancel check and a way to post to the tracker's thread.
class JobContext {
 public:
  // True once a newer job superseded this one, cancel() was called or the tracker is gone.
  bool isCancelled() const { return m_cancel->load(std::memory_order_relaxed); }
  // The same flag, for engine entry points that poll one (driver::compile, driver::run).
  const std::atomic<bool>* cancelFlag() const { return m_cancel.get(); }
  // Runs `fn` on the tracker's thread if this job is still the latest when it gets there.
  void post(std::function<void()> fn) const;

 private:
  friend class LatestJob;
  JobContext(std::shared_ptr<detail::JobRelay> relay, std::shared_ptr<std::atomic<bool>> cancel, quint64 id)
      : m_relay(std::move(relay)), m_cancel(std::move(cancel)), m_id(id) {}
  void finish(std::function<void()> deliver) const;

  std::shared_ptr<detail::JobRelay> m_relay;
  std::shared_ptr<std::atomic<bool>> m_cancel;
  quint64 m_id = 0;
};

class LatestJob : public QObject {
  Q_OBJECT

 public:
  explicit LatestJob(QObject* parent = nullptr);
  ~LatestJob() override;  // cancels the running job; it delivers nothing

  // Jobs run on `pool` (default: the global pool); it must outlive every start().
  // A pool of one thread runs them in start order (one SQLite store, say).
  void setThreadPool(QThreadPool* pool) { m_pool = pool; }

  // `job(const JobContext&)` runs on the pool and returns a value; `deliver(value)`
  // then runs on this object's thread unless a newer start() came in between.
  template <typename Job, typename Deliver>
  void start(Job job, Deliver deliver) {
    using Result = std::decay_t<std::invoke_result_t<Job&, const JobContext&>>;
    const JobContext context = begin();
    dispatch([context, job = std::move(job), deliver = std::move(deliver)]() mutable {
      std::shared_ptr<Result> result;
      try {
        result = std::make_shared<Result>(job(context));
      } catch (const std::exception& e) {
        result = detail::thrownResult<Result>(e.what());
      } catch (...) {
        result = detail::thrownResult<Result>("unknown exception");
      }
      context.finish([result, deliver]() mutable { deliver(std::move(*result)); });
    });
  }

  // Asks the running job to stop; it still delivers (an error, typically), so the
  // owner learns that it ended.
  void cancel();
  // True from start() until the latest job has delivered.
  bool isBusy() const { return m_running; }

 signals:
  // true when a job starts on an idle tracker; false after the latest job delivered
  // (and its deliver function started no other job on this tracker).
  void busyChanged(bool busy);

 private:
  friend struct detail::JobRelay;
  JobContext begin();
  void dispatch(std::function<void()> work);
  void receive(quint64 id, const std::function<void()>& fn, bool last);

  std::shared_ptr<detail::JobRelay> m_relay;
  std::shared_ptr<std::atomic<bool>> m_cancel;  // the latest job's flag
  QThreadPool* m_pool = nullptr;
  quint64 m_latestId = 0;
  bool m_running = false;
  bool m_announcedBusy = false;
};

}  // namespace dfc::views
