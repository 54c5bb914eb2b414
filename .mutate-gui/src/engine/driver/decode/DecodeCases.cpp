#include "driver/decode/DecodeCases.h"

#include "driver/compile/CompileToPlan.h"
#include "support/SizeBudget.h"

namespace dfc::driver {

std::vector<DecodeCase> publishedDecodeCases() {
  return {
      {"llama3.1-8b", 1042, 32, 4096, 32, 8, 14336, 128256, ""},
      {"llama3.1-70b", 457, 80, 8192, 64, 8, 28672, 128256, "llama3.1-8b"},
  };
}

Expected<pef::Pef> compileDecodeCase(const DecodeCase& c, const std::string& folder) {
  CompileOptions o;
  o.model = "llama";
  o.pefName = c.label;
  o.outputFolder = folder;
  o.inference = true;
  o.decode = true;  // the single-token step, its K and V caches persistent state
  o.kvCacheLen = kDecodeContext;
  o.batchSize = 1;
  o.level = partition::OptLevel::O3;
  o.enableHypersection = true;
  o.arch = "sn40l";
  o.nChips = kDecodeChips;
  o.dbPath = "-";
  o.modelParams = {{"num_layers", c.layers},          {"hidden_size", c.hidden}, {"num_heads", c.heads},
                   {"num_kv_heads", c.kvHeads},       {"intermediate_size", c.intermediate},
                   {"vocab_size", c.vocab}};
  o.args = o.toArgs();
  // The weights stay init recipes (nothing is allocated); the budget check
  // counts them as if they were, so lift it for these shapes.
  const uint64_t before = support::memoryBudget();
  support::setMemoryBudget(uint64_t{1} << 42);
  auto pef = compileToPlan(o);
  support::setMemoryBudget(before == support::machineMemoryBytes() ? 0 : before);
  return pef;
}

estimate::EstimateOptions decodeEstimateOptions() {
  estimate::EstimateOptions e;
  e.chips = kDecodeChips;
  e.decode = true;  // the compiled step reads its own caches
  return e;
}

Expected<ServedEstimate> estimateServed(const DecodeCase& c, const std::map<std::string, pef::Pef>& pefs,
                                        const arch::ArchSpec& arch, const estimate::EstimateOptions& options,
                                        double acceptance, int draftTokens) {
  auto find = [&](const std::string& label) -> Expected<const pef::Pef*> {
    auto it = pefs.find(label);
    if (it == pefs.end()) return makeError("decode case '" + label + "' is not compiled");
    return &it->second;
  };
  auto self = find(c.label);
  if (!self) return self.error();
  const pef::Pef& t = **self;
  auto plain = estimate::estimateStep(t.graph, t.plan, true, 1, arch, options);
  if (!plain) return plain.error();
  ServedEstimate r;
  r.plain = std::move(*plain);
  r.tokensPerS = r.plain.throughput;
  if (c.draft.empty() || acceptance < 0) return r;
  auto draft = find(c.draft);
  if (!draft) return draft.error();
  const pef::Pef& d = **draft;
  auto s = estimate::estimateSpeculative({t.graph, t.plan, 1}, {d.graph, d.plan, 1}, arch, options,
                                         {acceptance, draftTokens});
  if (!s) return s.error();
  r.tokensPerS = s->throughput;
  r.speculative = std::move(*s);
  return r;
}

}  // namespace dfc::driver
