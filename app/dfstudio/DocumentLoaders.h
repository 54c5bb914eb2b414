#pragma once
// The engine entry points the main window needs, as replaceable functions:
// the app passes engineLoaders(); tests pass synthetic ones, so the window is
// testable without files or a run store.
#include <functional>
#include <string>

#include "pef/Pef.h"
#include "profile/Trace.h"
#include "schedule/ScheduleData.h"
#include "support/Error.h"

namespace dfc::studio {

struct DocumentLoaders {
  std::function<Expected<pef::Pef>(const std::string& path)> readPef;
  std::function<Expected<profile::Trace>(const std::string& path)> readTrace;
  // Trace file of the newest run of `pefPath` recorded in the run store at
  // `dbPath` ("" = the default store); "" if none is known.
  std::function<std::string(const std::string& pefPath, const std::string& dbPath)> latestTraceForPef;
  // Measured section times of that newest run (empty if none; may be unset).
  std::function<views::MeasuredSections(const std::string& pefPath, const std::string& dbPath)> measuredSections;
};

DocumentLoaders engineLoaders();

}  // namespace dfc::studio
