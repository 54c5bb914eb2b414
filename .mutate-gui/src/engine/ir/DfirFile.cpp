#include "ir/DfirFile.h"

#include "ir/Parser.h"
#include "ir/TensorBudget.h"
#include "support/SafePath.h"

namespace dfc::ir {
namespace {

constexpr uint64_t kMaxDfirBytes = uint64_t{1} << 30;  // text IR of 1 GiB is far past any model

std::string at(const std::string& source, const std::vector<int>& lines, int32_t id) {
  if (id < 0 || static_cast<size_t>(id) >= lines.size()) return source + ": ";
  return source + ":" + std::to_string(lines[static_cast<size_t>(id)]) + ": ";
}

}  // namespace

Expected<Graph> parseDfirModel(std::string_view text, const std::string& source) {
  SourceLines lines;
  auto g = parseGraph(text, source, &lines);
  DFC_TRY(g);
  for (const Value& v : g->values)
    if (auto st = checkTensorBudget(valueKindName(v.kind) + " '" + v.name + "'", v.type); !st)
      return makeError(at(source, lines.value, v.id) + st.error().message());
  if (auto st = checkGraphBudget(*g); !st) return st.error().withContext(source);
  VerifyCulprit culprit;
  VerifyOptions opts;
  opts.requireWeights = false;
  opts.culprit = &culprit;
  if (auto st = verifyGraph(*g, opts); !st) {
    std::string where = culprit.node != kNoNode ? at(source, lines.node, culprit.node)
                                                : at(source, lines.value, culprit.value);
    return makeError(where + st.error().message());
  }
  return g;
}

Expected<Graph> loadDfirFile(const std::string& path) {
  auto text = support::readRegularFile(path, kMaxDfirBytes);
  DFC_TRY(text);
  return parseDfirModel(*text, path);
}

}  // namespace dfc::ir
