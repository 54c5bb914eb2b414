#include <spdlog/spdlog.h>

#include "FuzzTargets.h"
#include "support/SizeBudget.h"

namespace dfc::fuzz {

void setUp() {
  static bool done = false;
  if (done) return;
  done = true;
  support::setMemoryBudget(uint64_t{256} << 20);
  spdlog::set_level(spdlog::level::off);
}

const std::vector<Target>& targets() {
  static const std::vector<Target> all = {
      {"pef_reader", pefReader},       {"onnx_importer", onnxImporter},
      {"dfir_parser", dfirParser},     {"yaml_loaders", yamlLoaders},
      {"chrome_trace_reader", chromeTraceReader},
  };
  return all;
}

}  // namespace dfc::fuzz
