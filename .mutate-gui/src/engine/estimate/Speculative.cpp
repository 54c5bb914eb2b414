#include "estimate/Speculative.h"

#include <cmath>
#include <string>

namespace dfc::estimate {

double expectedTokensPerCycle(double a, int k) {
  if (a >= 1) return k + 1.0;
  return (1 - std::pow(a, k + 1)) / (1 - a);
}

namespace {

int64_t vocabulary(const ir::Graph& g) {
  if (g.outputs.empty()) return 0;
  const ir::Shape& s = g.value(g.outputs.front()).type.shape;
  return s.empty() ? 0 : s.back();
}

Status checkPair(const DecodeModel& target, const DecodeModel& draft, const SpeculativeOptions& s) {
  if (!(s.acceptance >= 0 && s.acceptance <= 1))
    return makeError("--acceptance " + std::to_string(s.acceptance) + ": must be in 0..1");
  if (s.draftTokens < 0 || s.draftTokens > kMaxDraftTokens)
    return makeError("--draft-tokens " + std::to_string(s.draftTokens) + ": must be 1.." +
                     std::to_string(kMaxDraftTokens));
  if (target.batch != draft.batch)
    return makeError("--draft-pef: the draft's batch (" + std::to_string(draft.batch) +
                     ") differs from the target's (" + std::to_string(target.batch) + ")");
  const int64_t vt = vocabulary(target.graph), vd = vocabulary(draft.graph);
  if (vt != vd)
    return makeError("--draft-pef: the draft's vocabulary (" + std::to_string(vd) +
                     " tokens) differs from the target's (" + std::to_string(vt) +
                     "); speculative decoding needs one tokenizer");
  return {};
}

Expected<StepEstimate> step(const DecodeModel& m, const arch::ArchSpec& arch, EstimateOptions o, int tokens,
                            double reservedHbm) {
  o.decode = true;
  o.kvCacheLen = 0;
  o.tokensPerStep = tokens;
  o.reservedHbmBytes = reservedHbm;
  return estimateStep(m.graph, m.plan, true, m.batch, arch, o);
}

}  // namespace

Expected<SpeculativeEstimate> estimateSpeculative(const DecodeModel& target, const DecodeModel& draft,
                                                  const arch::ArchSpec& arch, const EstimateOptions& options,
                                                  const SpeculativeOptions& s) {
  DFC_TRY(checkPair(target, draft, s));
  SpeculativeEstimate r;
  r.acceptance = s.acceptance;
  auto d = step(draft, arch, options, 1, 0);
  if (!d) return d.error().withContext("--draft-pef");
  r.draft = std::move(*d);
  const double reserved = r.draft.residentBytes[static_cast<int>(Tier::Hbm)];
  auto t = step(target, arch, options, 1, reserved);
  if (!t) return t.error();
  r.target = std::move(*t);
  const double batch = static_cast<double>(target.batch);
  for (int k = 1; k <= kMaxDraftTokens; ++k) {
    if (s.draftTokens != 0 && k != s.draftTokens) continue;
    auto v = step(target, arch, options, k + 1, reserved);
    if (!v) return v.error();
    SpeculativePoint p;
    p.draftTokens = k;
    p.tokensPerCycle = expectedTokensPerCycle(s.acceptance, k);
    p.verifyUs = v->stepUs;
    p.cycleUs = k * r.draft.stepUs + v->stepUs;
    p.throughput = p.cycleUs > 0 ? batch * p.tokensPerCycle / (p.cycleUs * 1e-6) : 0;
    r.sweep.push_back(p);
    if (r.draftTokens == 0 || p.throughput > r.throughput) {
      r.draftTokens = k;
      r.tokensPerCycle = p.tokensPerCycle;
      r.cycleUs = p.cycleUs;
      r.throughput = p.throughput;
      r.verify = std::move(*v);
    }
  }
  r.chosen = s.draftTokens == 0;
  return r;
}

}  // namespace dfc::estimate
