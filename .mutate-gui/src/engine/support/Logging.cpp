#include "support/Logging.h"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <filesystem>
#include <map>
#include <mutex>

#include "support/LogFileSink.h"

namespace dfc::support {
namespace {
std::mutex g_sinkMutex;
std::map<std::string, spdlog::sink_ptr> g_fileSinks;
}  // namespace

std::string setupLogging(const LogOptions& options) {
  auto console = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  console->set_level(options.debug ? spdlog::level::debug
                                   : (options.verbose ? spdlog::level::info : spdlog::level::warn));
  console->set_pattern("%^[%l]%$ %v");
  std::vector<spdlog::sink_ptr> sinks{console};
  std::string error;
  if (!options.logDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.logDir, ec);
    if (ec) {
      error = "--log-dir " + options.logDir + ": " + ec.message();
    } else {
      auto file = LogFileSink::open((std::filesystem::path(options.logDir) / "dfc_warnings.log").string(),
                                    LogFileSink::Mode::Append, "--log-dir");
      if (!file) {
        error = file.error().message();
      } else {
        (*file)->set_level(spdlog::level::warn);
        sinks.push_back(*file);
      }
    }
  }
  auto logger = std::make_shared<spdlog::logger>("dfc", sinks.begin(), sinks.end());
  logger->set_level(spdlog::level::debug);
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(logger);
  return error;
}

Status addFileSink(const std::string& path) {
  std::lock_guard lock(g_sinkMutex);
  auto sink = LogFileSink::open(path, LogFileSink::Mode::Truncate, "compile log");
  if (!sink) return sink.error();
  (*sink)->set_level(spdlog::level::debug);
  (*sink)->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%l] %v");
  spdlog::default_logger()->sinks().push_back(*sink);
  g_fileSinks[path] = *sink;
  return {};
}

void removeFileSink(const std::string& path) noexcept {
  std::lock_guard lock(g_sinkMutex);
  auto it = g_fileSinks.find(path);
  if (it == g_fileSinks.end()) return;
  auto& sinks = spdlog::default_logger()->sinks();
  std::erase(sinks, it->second);
  g_fileSinks.erase(it);  // the sink writes through; closing it cannot fail or throw
}

}  // namespace dfc::support
