// Row names from a trace's metadata: a process name is not lost when its
// threads have none (the PyTorch profiler names the process only).
#include <catch2/catch.hpp>

#include "timeline/TimelineData.h"

using namespace dfc;

TEST_CASE("A row of an unnamed thread keeps its process name", "[gui][timeline]") {
  profile::Trace trace;
  trace.processNames[4242] = "python3";
  trace.events.push_back({'X', "aten::mm", "cpu_op", 4242, 1, 0, 10, {}});
  trace.events.push_back({'X', "aten::add", "cpu_op", 4242, 2, 0, 5, {}});
  trace.threadNames[{4242, 2}] = "dataloader";
  const views::TimelineData data = views::buildTimelineData(trace);
  REQUIRE(data.rows.size() == 2);
  CHECK(data.rows[0].name == QStringLiteral("python3: tid 1"));
  CHECK(data.rows[1].name == QStringLiteral("dataloader"));  // named: the thread's name is enough
}
