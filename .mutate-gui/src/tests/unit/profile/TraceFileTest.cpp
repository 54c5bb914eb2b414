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

// Issue 36: `cat a.json.gz b.json.gz` is one valid gzip file of two members
// (gzip -d reads both); the reader stopped after the first and called the
// rest corrupt.
TEST_CASE("a multi-member gzip trace reads every member", "[profile][tracefile]") {
  TempDir dir;
  const std::string json = profile::chromeTraceToJson(sampleTrace());
  const size_t half = json.size() / 2;
  const std::string a = (dir.path / "a.gz").string(), b = (dir.path / "b.gz").string();
  REQUIRE(profile::writeTraceFile(a, json.substr(0, half)));
  REQUIRE(profile::writeTraceFile(b, json.substr(half)));
  auto first = support::readFile(a), second = support::readFile(b);
  REQUIRE(first);
  REQUIRE(second);
  const std::string joined = (dir.path / "joined.json.gz").string();
  std::ofstream(joined, std::ios::binary) << *first << *second;
  auto inflated = profile::gunzipWithin(*first + *second, "joined");
  REQUIRE(inflated);
  CHECK(inflated->view() == json);
  auto compact = profile::readCompactTrace(joined);
  REQUIRE(compact);
  CHECK(compact->events.size() == 500);
  auto dom = profile::readChromeTrace(joined);
  REQUIRE(dom);
  CHECK(dom->events.size() == 500);
  // Zero padding after the last member is tolerated (as gzip does); other bytes are not.
  CHECK(profile::gunzipWithin(*first + std::string(16, '\0'), "padded"));
  auto trailing = profile::gunzipWithin(*first + "junk", "junk.gz");
  REQUIRE_FALSE(trailing);
  CHECK_THAT(trailing.error().message(), Catch::Contains("junk.gz") && Catch::Contains("not another gzip member"));
}

// Issue 36: the budget counted decompressed bytes while the string doubled
// as it grew and the text was copied once more into a padded buffer: a file
// "within" the budget took three times it. Now every allocation counts: the
// compressed input held meanwhile, the buffer's capacity and, while it grows,
// the old block and the new one together.
TEST_CASE("inflating a gzip trace counts what it allocates against the budget", "[profile][tracefile]") {
  const std::string text(600 << 10, 'x');  // 600 KiB of text
  TempDir dir;
  const std::string one = (dir.path / "one.gz").string(), tail = (dir.path / "tail.gz").string();
  REQUIRE(profile::writeTraceFile(one, text));
  REQUIRE(profile::writeTraceFile(tail, "y"));
  auto single = support::readFile(one), small = support::readFile(tail);
  REQUIRE(single);
  REQUIRE(small);
  support::setMemoryBudget(1 << 20);  // 1 MiB
  // One member: its size field gives the buffer its size at once; 600 KiB + the input fit.
  auto fits = profile::gunzipWithin(*single, "one.gz", single->size());
  // Two members: only the last one's size is known (1 byte), so the buffer
  // grows by half; at ~540 KiB the next block (810 KiB) plus the old one pass 1 MiB.
  auto grows = profile::gunzipWithin(*single + *small, "two.gz", single->size() + small->size());
  support::setMemoryBudget(0);
  REQUIRE(fits);
  CHECK(fits->size() == text.size());
  CHECK(fits->capacity() == text.size());
  REQUIRE_FALSE(grows);
  CHECK_THAT(grows.error().message(), Catch::Contains("two.gz") && Catch::Contains("memory budget"));
}
