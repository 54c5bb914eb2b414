#include "compile/LogForwarder.h"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <mutex>

namespace dfc::views {
namespace {

class QtSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit QtSink(LogForwarder* target) : m_target(target) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    const auto level = spdlog::level::to_string_view(msg.level);
    m_target->forward(QString::fromUtf8(level.data(), static_cast<qsizetype>(level.size())),
                      QString::fromUtf8(msg.payload.data(), static_cast<qsizetype>(msg.payload.size())));
  }
  void flush_() override {}

 private:
  LogForwarder* m_target;
};

}  // namespace

LogForwarder* LogForwarder::instance() {
  // Never deleted: spdlog may log from worker threads until exit.
  static LogForwarder* forwarder = [] {
    auto* f = new LogForwarder;
    spdlog::default_logger()->sinks().push_back(std::make_shared<QtSink>(f));
    return f;
  }();
  return forwarder;
}

}  // namespace dfc::views
