// Log files obey the output-file policy (issue 36): a symlink out of the
// folder, a FIFO or a device is refused before a byte is written, opening
// never blocks, and a write that fails (a full disk) never throws or aborts.
#include <catch2/catch.hpp>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "support/LogFileSink.h"
#include "support/Logging.h"

using namespace dfc;
using support::LogFileSink;
namespace fs = std::filesystem;

namespace {

struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("dfc-logsink-" + std::to_string(std::random_device{}()));
  Scratch() { fs::create_directories(dir / "inside"); }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string operator/(const std::string& name) const { return (dir / name).string(); }
};

std::string contents(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void log(LogFileSink& sink, const std::string& text) {
  sink.log(spdlog::details::log_msg("t", spdlog::level::warn, text));
}

}  // namespace

TEST_CASE("a log file is refused when it would write outside its folder or block") {
  Scratch s;
  std::ofstream(s / "victim.txt") << "keep me\n";
  fs::create_symlink(s / "victim.txt", s / "inside/out.log");
  auto outside = LogFileSink::open(s / "inside/out.log", LogFileSink::Mode::Truncate, "compile log");
  REQUIRE_FALSE(outside.ok());
  CHECK_THAT(outside.error().message(), Catch::StartsWith("compile log " + (s / "inside/out.log")) &&
                                            Catch::Contains("symlink out of its folder"));
  CHECK(contents(s / "victim.txt") == "keep me\n");

  REQUIRE(::mkfifo((s / "inside/fifo.log").c_str(), 0644) == 0);
  auto fifo = LogFileSink::open(s / "inside/fifo.log", LogFileSink::Mode::Append, "--log-dir");
  REQUIRE_FALSE(fifo.ok());  // returned at once: nothing opened the FIFO for writing and waited for a reader
  CHECK_THAT(fifo.error().message(), Catch::Contains("is a FIFO"));

  auto device = LogFileSink::open("/dev/null", LogFileSink::Mode::Append, "--log-dir");
  REQUIRE_FALSE(device.ok());
  CHECK_THAT(device.error().message(), Catch::Contains("character device"));
}

TEST_CASE("a log file truncates or appends as asked, and a link inside its folder is followed") {
  Scratch s;
  std::ofstream(s / "inside/real.log") << "old line\n";
  fs::create_symlink("real.log", s / "inside/link.log");
  {
    auto sink = LogFileSink::open(s / "inside/link.log", LogFileSink::Mode::Append, "--log-dir");
    REQUIRE(sink.ok());
    (*sink)->set_pattern("%v");
    log(**sink, "appended");
  }
  CHECK(contents(s / "inside/real.log") == "old line\nappended\n");
  {
    auto sink = LogFileSink::open(s / "inside/real.log", LogFileSink::Mode::Truncate, "compile log");
    REQUIRE(sink.ok());
    (*sink)->set_pattern("%v");
    log(**sink, "fresh");
    CHECK((*sink)->failedWrites() == 0);
  }
  CHECK(contents(s / "inside/real.log") == "fresh\n");
}

TEST_CASE("a log write that fails is counted, never thrown: the process goes on") {
  // A file size limit of 16 bytes stands in for a full disk: writes past it fail (EFBIG).
  Scratch s;
  const std::string path = s / "inside/full.log";
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit{16, 16};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    auto sink = LogFileSink::open(path, LogFileSink::Mode::Truncate, "compile log");
    if (!sink) ::_exit(10);
    (*sink)->set_pattern("%v");
    log(**sink, "0123456789");                // 11 bytes: fits
    log(**sink, "this line does not fit");    // cut at the limit, then fails
    log(**sink, "nor does this one");
    (*sink)->flush();
    ::_exit((*sink)->failedWrites() == 2 ? 0 : 11);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(WIFEXITED(status));  // no SIGABRT from an exception out of a write or a flush
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(contents(path).starts_with("0123456789\n"));
}

TEST_CASE("the compile log sink refuses a path that may not be written, and is removed without throwing") {
  Scratch s;
  fs::create_symlink("/etc/hostname", s / "inside/x_compile.log");
  auto st = support::addFileSink(s / "inside/x_compile.log");
  REQUIRE_FALSE(st.ok());
  CHECK_THAT(st.error().message(), Catch::Contains("x_compile.log"));
  const size_t sinks = spdlog::default_logger()->sinks().size();
  REQUIRE(support::addFileSink(s / "inside/y_compile.log").ok());
  CHECK(spdlog::default_logger()->sinks().size() == sinks + 1);
  support::removeFileSink(s / "inside/y_compile.log");
  CHECK(spdlog::default_logger()->sinks().size() == sinks);
}
