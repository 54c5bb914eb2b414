// The YAML loaders: arch files, -o1 fusion rule lists and compiler configs
// files (all through yaml-cpp, which throws on anything unexpected).
#include "FuzzTargets.h"
#include "arch/ArchSpec.h"
#include "driver/compile/CompilerConfig.h"
#include "partition/FusionRules.h"

namespace dfc::fuzz {

void yamlLoaders(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)arch::parseArchYaml(text, "fuzz.yaml");
  (void)partition::parseFusionRules(text, "fuzz.yaml");
  (void)driver::parseCompilerConfig(text, "fuzz.yaml");
}

}  // namespace dfc::fuzz

DFC_FUZZ_ENTRY(yamlLoaders)
