#include "driver/compile/LegacyMapping.h"

#include <spdlog/spdlog.h>

namespace dfc::driver {

void useLegacyMapping(mapping::MappingOptions& options) {
  options.shareSplitPieces = false;
  options.keepAttentionBlocks = false;
  options.cache = nullptr;  // the cache replays a cut with its pieces shared
  spdlog::info("--mac-v2: legacy mapping path (split subgraphs compile each piece; bounded placer schedule)");
}

void useLegacyPlacer(kernelc::LinkOptions& options) {
  options.placer.schedule = kernelc::PlacerOptions::Schedule::Bounded;
}

}  // namespace dfc::driver
