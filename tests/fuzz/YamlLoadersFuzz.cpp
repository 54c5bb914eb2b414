// The YAML loaders: arch files and -o1 fusion rule lists (both through
// yaml-cpp, which throws on anything unexpected).
#include "FuzzTargets.h"
#include "arch/ArchSpec.h"
#include "partition/FusionRules.h"

namespace dfc::fuzz {

void yamlLoaders(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)arch::parseArchYaml(text, "fuzz.yaml");
  (void)partition::parseFusionRules(text, "fuzz.yaml");
}

}  // namespace dfc::fuzz

DFC_FUZZ_ENTRY(yamlLoaders)
