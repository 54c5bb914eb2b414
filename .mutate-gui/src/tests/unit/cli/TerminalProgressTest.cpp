// The progress line of dfc compile and dfc run (app/dfc/TerminalProgress.h).
#include <catch2/catch.hpp>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "TerminalProgress.h"

using dfc::cli::TerminalProgress;

TEST_CASE("progress times read as seconds below a minute, m:ss from one on") {
  CHECK(TerminalProgress::duration(0) == "0.0 s");
  CHECK(TerminalProgress::duration(12.34) == "12.3 s");
  CHECK(TerminalProgress::duration(59.94) == "59.9 s");
  CHECK(TerminalProgress::duration(60) == "1:00");
  CHECK(TerminalProgress::duration(65.9) == "1:05");
  CHECK(TerminalProgress::duration(3725) == "62:05");
}

TEST_CASE("the progress line names the stage, the share done and, past 5%, the time left") {
  TerminalProgress bar("compile", false);
  CHECK_THAT(bar.line(), Catch::Matches(R"(compile: starting +0% \| [0-9.]+ s)"));
  bar.update("place", 0.04);
  CHECK_THAT(bar.line(), Catch::Matches(R"(compile: place +4% \| [0-9.]+ s)"));  // too early to guess
  bar.update("route", 0.5);
  CHECK_THAT(bar.line(), Catch::Matches(R"(compile: route +50% \| [0-9.]+ s \| about [0-9.]+ s left)"));
  bar.update("route", 0.25);  // a share never goes back
  CHECK_THAT(bar.line(), Catch::Contains(" 50%"));
  bar.update("record", 1.0);
  CHECK_THAT(bar.line(), Catch::Matches(R"(compile: record 100% \| [0-9.]+ s)"));  // done: nothing left to guess
}

TEST_CASE("off a terminal, short stages print nothing") {
  char path[] = "/tmp/dfc-progress-XXXXXX";
  const int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  std::fflush(stderr);
  const int saved = ::dup(2);
  ::dup2(fd, 2);
  {
    TerminalProgress bar("run", false);
    bar.update("load-pef", 0.1);
    bar.update("train", 0.6);
  }
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  ::close(fd);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path);
  CHECK(text.str().empty());
}
