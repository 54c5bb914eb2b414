#pragma once
// A graph optimization pass: rewrites an ir::Graph in place and says whether
// it changed anything. Passes are listed in Passes.def and run by PassManager
// from a pipeline given as data (a list of names).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/Graph.h"
#include "support/Error.h"

namespace dfc::passes {

class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string_view name() const = 0;  // kebab-case, as in Passes.def
  // true when the graph changed. An error leaves the graph unspecified.
  virtual Expected<bool> run(ir::Graph& graph) = 0;
};

// One factory per line of Passes.def.
#define DFC_PASS(Factory, name, doc) std::unique_ptr<Pass> Factory();
#include "passes/Passes.def"
#undef DFC_PASS

struct PassInfo {
  std::string_view name;
  std::string_view doc;
};

const std::vector<PassInfo>& registeredPasses();
// The pass named `name`; an error naming it (and listing the known ones) otherwise.
Expected<std::unique_ptr<Pass>> createPass(std::string_view name);

}  // namespace dfc::passes
