// views::LatestJob: the latest request wins, a destroyed owner gets nothing,
// a running job sees cancel. The order of events is forced with semaphores.
#include <QCoreApplication>
#include <QSemaphore>
#include <QSignalSpy>
#include <QThread>
#include <QThreadPool>
#include <atomic>
#include <catch2/catch.hpp>
#include <memory>
#include <stdexcept>

#include "GuiTestSupport.h"
#include "support/LatestJob.h"

using dfc::views::JobContext;
using dfc::views::LatestJob;

namespace {

// Runs every job the pool has, then every result they posted.
void drain(QThreadPool& pool) {
  pool.waitForDone();
  QCoreApplication::sendPostedEvents();
}

}  // namespace

TEST_CASE("An older job that finishes after a newer one never overwrites the newer result", "[gui][jobs]") {
  guitest::ensureApp();
  QThreadPool pool;
  pool.setMaxThreadCount(2);
  LatestJob tracker;
  tracker.setThreadPool(&pool);
  QSignalSpy busy(&tracker, &LatestJob::busyChanged);
  QStringList shown;
  QSemaphore olderMayFinish;
  std::atomic<bool> olderSawCancel{false};

  tracker.start(
      [&](const JobContext& job) {
        olderMayFinish.acquire();  // held until the newer job has delivered
        olderSawCancel = job.isCancelled();
        job.post([&shown] { shown << QStringLiteral("older progress"); });
        return QStringLiteral("older");
      },
      [&shown](const QString& result) { shown << result; });
  tracker.start([](const JobContext&) { return QStringLiteral("newer"); },
                [&shown](const QString& result) { shown << result; });
  QSignalSpy idle(&tracker, &LatestJob::busyChanged);
  REQUIRE(idle.wait(10000));
  CHECK(shown == QStringList{QStringLiteral("newer")});
  CHECK(!tracker.isBusy());

  olderMayFinish.release();
  drain(pool);
  CHECK(olderSawCancel);
  CHECK(shown == QStringList{QStringLiteral("newer")});
  REQUIRE(busy.count() == 2);  // busy once for both jobs, idle once
  CHECK(busy.at(0).at(0).toBool());
  CHECK(!busy.at(1).at(0).toBool());
}

TEST_CASE("A job whose owner was destroyed delivers nothing", "[gui][jobs]") {
  guitest::ensureApp();
  QThreadPool pool;
  QSemaphore started;
  QSemaphore mayFinish;
  std::atomic<bool> sawCancel{false};
  bool delivered = false;
  bool progressed = false;
  auto owner = std::make_unique<QObject>();
  auto* tracker = new LatestJob(owner.get());
  tracker->setThreadPool(&pool);
  tracker->start(
      [&](const JobContext& job) {
        started.release();
        mayFinish.acquire();
        sawCancel = job.isCancelled();
        job.post([&progressed] { progressed = true; });
        return std::make_shared<int>(42);
      },
      [&delivered](const std::shared_ptr<int>&) { delivered = true; });
  started.acquire();
  owner.reset();  // the tracker goes with it while the job runs
  mayFinish.release();
  drain(pool);
  CHECK(sawCancel);
  CHECK(!delivered);
  CHECK(!progressed);
}

TEST_CASE("A running job sees cancel and still reports how it ended", "[gui][jobs]") {
  guitest::ensureApp();
  QThreadPool pool;
  LatestJob tracker;
  tracker.setThreadPool(&pool);
  QSemaphore started;
  QString result;
  tracker.start(
      [&started](const JobContext& job) {
        started.release();
        while (!job.cancelFlag()->load()) QThread::yieldCurrentThread();
        return job.isCancelled() ? QStringLiteral("cancelled") : QStringLiteral("finished");
      },
      [&result](const QString& r) { result = r; });
  started.acquire();
  CHECK(tracker.isBusy());
  QSignalSpy idle(&tracker, &LatestJob::busyChanged);
  tracker.cancel();
  REQUIRE(idle.wait(10000));
  CHECK(result == QStringLiteral("cancelled"));
  CHECK(!tracker.isBusy());
}

TEST_CASE("A result that starts the next job keeps the tracker busy without a flicker", "[gui][jobs]") {
  guitest::ensureApp();
  QThreadPool pool;
  LatestJob tracker;
  tracker.setThreadPool(&pool);
  QSignalSpy busy(&tracker, &LatestJob::busyChanged);
  QStringList shown;
  tracker.start([](const JobContext&) { return 1; },
                [&](int first) {
                  shown << QString::number(first);
                  tracker.start([](const JobContext&) { return 2; },
                                [&shown](int second) { shown << QString::number(second); });
                });
  REQUIRE(busy.wait(10000));  // the next change is the idle after the second result
  drain(pool);
  CHECK(shown == QStringList{QStringLiteral("1"), QStringLiteral("2")});
  REQUIRE(busy.count() == 2);
  CHECK(busy.at(0).at(0).toBool());
  CHECK(!busy.at(1).at(0).toBool());
}

TEST_CASE("A job that throws delivers an internal error instead of taking the app down", "[gui][jobs]") {
  guitest::ensureApp();
  QThreadPool pool;
  LatestJob tracker;
  tracker.setThreadPool(&pool);
  std::string delivered;
  tracker.start(
      [](const JobContext&) -> dfc::Expected<int> {
        throw std::runtime_error("yaml-cpp: bad conversion");  // a loader's library throwing on a hostile file
      },
      [&delivered](const dfc::Expected<int>& result) { delivered = result ? "value" : result.error().message(); });
  QString plain = QStringLiteral("unset");
  LatestJob other;
  other.setThreadPool(&pool);
  other.start([](const JobContext&) -> QString { throw 42; }, [&plain](const QString& result) { plain = result; });
  drain(pool);
  CHECK(delivered == "internal error in a background job: yaml-cpp: bad conversion");
  CHECK(plain.isEmpty());  // a plain result type gets its default value
  CHECK(!tracker.isBusy());
  CHECK(!other.isBusy());
}
