#include "driver/LegacyMapping.h"

namespace dfc::driver {

void useLegacyMapping(mapping::MappingOptions& options) {
  options.shareSplitPieces = false;
  options.keepAttentionBlocks = false;
  options.cache = nullptr;  // the cache replays a cut with its pieces shared
}

void useLegacyPlacer(kernelc::LinkOptions& options) {
  options.placer.schedule = kernelc::PlacerOptions::Schedule::Bounded;
}

}  // namespace dfc::driver
