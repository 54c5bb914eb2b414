#include "DocumentLoaders.h"

#include "profile/ChromeTrace.h"
#include "profile/RunStore.h"

namespace dfc::studio {
namespace {

// The latest run that finished and measured the PEF's sections: a killed or
// failed run has a partial record and no trace, and a measure-performance run
// (without --op-profile) records no section calls, so neither hides the run before it.
std::optional<profile::RunRecord> latestRun(profile::RunStore& store, const std::string& pefPath) {
  auto run = store.latestMeasuredRunForPef(pefPath);
  if (!run || !run->has_value()) return std::nullopt;
  return **run;
}

}  // namespace

DocumentLoaders engineLoaders() {
  DocumentLoaders loaders;
  loaders.readPef = [](const std::string& path) { return pef::readPef(path, pef::PefUse::View); };
  loaders.readTrace = [](const std::string& path) { return profile::readChromeTrace(path); };
  loaders.readCompactTrace = [](const std::string& path) { return profile::readCompactTrace(path); };
  loaders.latestTraceForPef = [](const std::string& pefPath, const std::string& dbPath) -> std::string {
    if (dbPath == "-") return {};
    auto store = profile::RunStore::open(dbPath.empty() ? profile::RunStore::defaultPath() : dbPath);
    if (!store) return {};
    auto run = latestRun(*store, pefPath);
    return run ? run->tracePath : std::string();
  };
  loaders.measuredSections = [](const std::string& pefPath, const std::string& dbPath) {
    views::MeasuredSections measured;
    if (dbPath == "-") return measured;
    auto store = profile::RunStore::open(dbPath.empty() ? profile::RunStore::defaultPath() : dbPath);
    if (!store) return measured;
    auto run = latestRun(*store, pefPath);
    if (!run) return measured;
    auto calls = store->sectionCalls(run->id);
    if (!calls) return measured;
    for (const auto& c : *calls) {
      auto& m = measured[c.sectionId];
      m.first += c.durationUs;
      m.second += 1;
    }
    return measured;
  };
  return loaders;
}

}  // namespace dfc::studio
