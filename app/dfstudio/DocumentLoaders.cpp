#include "DocumentLoaders.h"

#include "profile/ChromeTrace.h"
#include "profile/RunStore.h"

namespace dfc::studio {

DocumentLoaders engineLoaders() {
  DocumentLoaders loaders;
  loaders.readPef = [](const std::string& path) { return pef::readPef(path); };
  loaders.readTrace = [](const std::string& path) { return profile::readChromeTrace(path); };
  loaders.latestTraceForPef = [](const std::string& pefPath, const std::string& dbPath) -> std::string {
    auto store = profile::RunStore::open(dbPath.empty() ? profile::RunStore::defaultPath() : dbPath);
    if (!store) return {};
    auto run = store->latestRunForPef(pefPath);
    if (!run || !run->has_value()) return {};
    return (*run)->tracePath;
  };
  return loaders;
}

}  // namespace dfc::studio
