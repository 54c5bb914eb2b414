// Traces on disk as .json.gz: written compressed, read back the same as plain
// JSON by both readers; a truncated file and one that inflates past the memory
// budget are refused with the file's name.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "profile/ChromeTrace.h"
#include "profile/CompactTrace.h"
#include "profile/TraceFile.h"
#include "profile/TraceRecorder.h"
#include "support/FileUtil.h"
#include "support/SizeBudget.h"

using namespace dfc;
namespace fs = std::filesystem;

namespace {

profile::Trace sampleTrace() {
  profile::TraceRecorder rec;
  rec.setProcessName(1, "model");
  rec.setThreadName(1, 0, "whole model run", 0);
  for (int i = 0; i < 500; ++i)
    rec.addSlice(1, 0, "section " + std::to_string(i % 7), "section", i * 10.0, 8.0, {{"step", static_cast<double>(i / 7)}});
  return rec.take();
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("dfc-tracefile-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

}  // namespace

TEST_CASE("a .json.gz trace is gzip on disk and reads back like the plain one", "[profile][tracefile]") {
  TempDir dir;
  const std::string plain = (dir.path / "t.json").string(), packed = (dir.path / "t.json.gz").string();
  REQUIRE(profile::writeChromeTrace(sampleTrace(), plain));
  REQUIRE(profile::writeChromeTrace(sampleTrace(), packed));
  auto bytes = support::readFile(packed);
  REQUIRE(bytes);
  CHECK(profile::isGzip(*bytes));
  CHECK(fs::file_size(packed) * 5 < fs::file_size(plain));  // repetitive JSON compresses well
  auto a = profile::readChromeTrace(plain), b = profile::readChromeTrace(packed);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->events.size() == b->events.size());
  CHECK(b->events.size() == 500);
  auto compact = profile::readCompactTrace(packed);
  REQUIRE(compact);
}

TEST_CASE("a truncated or oversized gzip trace is refused, naming the file", "[profile][tracefile]") {
  TempDir dir;
  const std::string packed = (dir.path / "t.json.gz").string();
  REQUIRE(profile::writeChromeTrace(sampleTrace(), packed));
  auto bytes = support::readFile(packed);
  REQUIRE(bytes);
  const std::string cut = (dir.path / "cut.json.gz").string();
  std::ofstream(cut, std::ios::binary) << bytes->substr(0, bytes->size() / 2);
  auto truncated = profile::readChromeTrace(cut);
  REQUIRE(!truncated);
  CHECK_THAT(truncated.error().message(), Catch::Contains(cut) && Catch::Contains("truncated"));

  // A small file that inflates to 4 MiB against a 1 MiB budget (a gzip bomb in miniature).
  const std::string bomb = (dir.path / "bomb.json.gz").string();
  REQUIRE(profile::writeTraceFile(bomb, std::string(4 << 20, ' ')));
  CHECK(fs::file_size(bomb) < 64 * 1024);
  support::setMemoryBudget(1 << 20);
  auto refused = profile::readCompactTrace(bomb);
  support::setMemoryBudget(0);
  REQUIRE(!refused);
  CHECK_THAT(refused.error().message(), Catch::Contains(bomb) && Catch::Contains("memory budget"));
}
