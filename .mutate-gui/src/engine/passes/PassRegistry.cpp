#include "passes/Pass.h"

namespace dfc::passes {

namespace {
using Factory = std::unique_ptr<Pass> (*)();
struct Entry {
  PassInfo info;
  Factory factory;
};
const std::vector<Entry>& entries() {
  static const std::vector<Entry> table = {
#define DFC_PASS(Factory, name, doc) {{name, doc}, &Factory},
#include "passes/Passes.def"
#undef DFC_PASS
  };
  return table;
}
}  // namespace

const std::vector<PassInfo>& registeredPasses() {
  static const std::vector<PassInfo> infos = [] {
    std::vector<PassInfo> out;
    for (const Entry& e : entries()) out.push_back(e.info);
    return out;
  }();
  return infos;
}

Expected<std::unique_ptr<Pass>> createPass(std::string_view name) {
  for (const Entry& e : entries())
    if (e.info.name == name) return e.factory();
  std::string known;
  for (const Entry& e : entries()) known += (known.empty() ? "" : ", ") + std::string(e.info.name);
  return makeError("unknown pass '" + std::string(name) + "' (known passes: " + known + ")");
}

}  // namespace dfc::passes
