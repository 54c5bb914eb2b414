#pragma once
// The engine entry points the screens need, as replaceable functions: the app
// passes its engine-backed set (app/dfstudio/DocumentLoaders.h); tests pass
// synthetic ones, so the screens are testable without files or a run store.
#include <QString>
#include <functional>
#include <string>

#include "pef/Pef.h"
#include "profile/CompactTrace.h"
#include "profile/Trace.h"
#include "schedule/ScheduleData.h"
#include "support/Error.h"

namespace dfc::views {

struct DocumentLoaders {
  std::function<Expected<pef::Pef>(const std::string& path)> readPef;
  std::function<Expected<profile::Trace>(const std::string& path)> readTrace;
  // The fast reader for big traces (simdjson into the compact form); preferred
  // over readTrace when set.
  std::function<Expected<profile::CompactTrace>(const std::string& path)> readCompactTrace;
  // Trace file of the newest run of `pefPath` recorded in the run store at
  // `dbPath` ("" = the default store); "" if none is known.
  std::function<std::string(const std::string& pefPath, const std::string& dbPath)> latestTraceForPef;
  // Measured section times of that newest run (empty if none; may be unset).
  std::function<views::MeasuredSections(const std::string& pefPath, const std::string& dbPath)> measuredSections;
};

// The trace of the newest run of `pefPath` in the store, else the one `dfc run`
// writes beside the PEF; "" if neither exists.
QString findTraceForPef(const DocumentLoaders& loaders, const QString& pefPath, const QString& dbPath);

}  // namespace dfc::views
