#include <cmath>
#include <cstdio>

#include "ArgParser.h"
#include "Commands.h"
#include "estimate/PefEstimate.h"
#include "support/Logging.h"

namespace dfc::cli {

namespace {

ArgParser estimateFlags() {
  ArgParser p("estimate",
              "The chip's estimated time per step of a PEF: throughput (tokens/s for a decode step, samples/s "
              "otherwise), time split into compute / memory (per tier) / communication, the bound that limits it, "
              "and the share of the chip's peak FLOP/s and of each tier's bandwidth it implies. Weights and KV "
              "cache live in HBM while they fit, DDR after that. Inference PEFs split tensor parallel over "
              "--n-chips (attention heads, KV heads and MLP columns; an all-reduce after each attention output and "
              "MLP down projection): an annotation the estimate applies, the host run (dfc run) does not split.");
  p.add({{"-p", "--pef"}, "FILE", 1, "the PEF to estimate (required; also as the first argument)"});
  p.add({{"--arch"}, "NAME|FILE", 1, "estimate for this arch instead of the PEF's (sn10, sn20, sn30, sn40l or a YAML file)"});
  p.add({{"--n-chips"}, "N", 1,
         "tensor-parallel chips (1..16, inference PEFs; default: the PEF's --n-chips). Training PEFs are estimated "
         "on 1 chip: the split of backward and optimizer sections is not modelled"});
  p.add({{"--fusion"}, "block|layer|section", 1,
         "block (default): the step streams as one call, the outer loop over layers pipelined so the next "
         "section's weight loads overlap this one's compute (SambaNova's kernel looping); layer: one such call "
         "per decoder layer, the pipeline drained between calls; section: one call per section, in turn"});
  p.add({{"--kv-cache-len"}, "N", 1,
         "decode step: every attention of a one-token inference PEF (--seq-len 1) also reads a KV cache of N "
         "positions (its KV heads x N x head dim x 2 bytes per element each for K and V); prints tokens/s"});
  p.add({{"--element-bytes"}, "B", 1, "bytes per stored element on the chip (default 2: bf16; the host runs f32)"});
  p.add({{"--call-overhead-us"}, "US", 1, "time to launch and sync one section call (default 5; an assumption)"});
  p.add({{"--draft-pef"}, "FILE", 1,
         "speculative decoding: this decode-step PEF drafts tokens for the --pef decode step, which checks them "
         "k + 1 at a time (weights and cache read once); both resident on the same chips. Needs --acceptance"});
  p.add({{"--acceptance"}, "A", 1,
         "with --draft-pef: the probability (0..1) that the target accepts one draft token; a property of the "
         "model pair and the text (dfc run --decode --draft-pef measures it on the host)"});
  p.add({{"--draft-tokens"}, "K", 1, "with --draft-pef: draft tokens per verification (1..16; default: the fastest)"});
  p.add({{"--sections"}, "", 0, "also print every section call's figures"});
  p.add({{"--json"}, "", 0, "print the estimate as JSON instead of text"});
  addMaxMemoryFlag(p);
  p.add({{"-h", "--help"}, "", 0, "show this help"});
  return p;
}

Status readNumbers(const ArgParser& p, estimate::PefEstimateRequest& r) {
  if (p.has("--n-chips")) {
    auto v = parseInt("--n-chips", p.get("--n-chips"));
    if (!v) return v.error();
    if (*v < 1 || *v > 16) return makeError("--n-chips " + p.get("--n-chips") + ": must be 1..16");
    r.chips = static_cast<int>(*v);
  }
  if (p.has("--kv-cache-len")) {
    auto v = parseInt("--kv-cache-len", p.get("--kv-cache-len"));
    if (!v) return v.error();
    if (*v < 1 || *v > (int64_t{1} << 24)) return makeError("--kv-cache-len " + p.get("--kv-cache-len") + ": must be 1..16777216");
    r.options.kvCacheLen = *v;
  }
  for (auto [flag, out, lo, hi] : {std::tuple{"--element-bytes", &r.options.elementBytes, 0.125, 8.0},
                                   {"--call-overhead-us", &r.options.sectionCallUs, 0.0, 1e6}}) {
    if (!p.has(flag)) continue;
    auto v = parseDouble(flag, p.get(flag));
    if (!v) return v.error();
    if (!std::isfinite(*v) || *v < lo || *v > hi)
      return makeError(std::string(flag) + " " + p.get(flag) + ": must be in " + std::to_string(lo) + ".." + std::to_string(hi));
    *out = *v;
  }
  return {};
}

Status readRequest(const ArgParser& p, estimate::PefEstimateRequest& r) {
  r.pefPath = p.get("--pef", p.positional().empty() ? "" : p.positional().front());
  if (r.pefPath.empty()) return makeError("estimate: -p/--pef is required");
  r.arch = p.get("--arch");
  const std::string fusion = p.get("--fusion", "block");
  auto f = estimate::fusionFromName(fusion);
  if (!f) return makeError("--fusion " + fusion + ": must be 'block', 'layer' or 'section'");
  r.options.fusion = *f;
  return readNumbers(p, r);
}

// --draft-pef with its --acceptance and --draft-tokens; none of them alone.
Status readSpeculative(const ArgParser& p, estimate::SpeculativeOptions& s) {
  if (!p.has("--draft-pef")) {
    for (const char* flag : {"--acceptance", "--draft-tokens"})
      if (p.has(flag)) return makeError(std::string(flag) + ": needs --draft-pef");
    return {};
  }
  if (!p.has("--acceptance")) return makeError("--draft-pef: needs --acceptance (the draft's per-token acceptance rate)");
  if (p.has("--kv-cache-len")) return makeError("--kv-cache-len: a speculative estimate takes decode-step PEFs with their own caches");
  auto a = parseDouble("--acceptance", p.get("--acceptance"));
  if (!a) return a.error();
  if (!std::isfinite(*a) || *a < 0 || *a > 1) return makeError("--acceptance " + p.get("--acceptance") + ": must be in 0..1");
  s.acceptance = *a;
  if (p.has("--draft-tokens")) {
    auto k = parseInt("--draft-tokens", p.get("--draft-tokens"));
    if (!k) return k.error();
    if (*k < 1 || *k > estimate::kMaxDraftTokens)
      return makeError("--draft-tokens " + p.get("--draft-tokens") + ": must be 1.." + std::to_string(estimate::kMaxDraftTokens));
    s.draftTokens = static_cast<int>(*k);
  }
  return {};
}

int speculativeCommand(const ArgParser& p, const estimate::PefEstimateRequest& r) {
  estimate::SpeculativeOptions s;
  if (auto st = readSpeculative(p, s); !st) return reportError(st.error());
  auto e = estimate::estimateSpeculativePef(r, p.get("--draft-pef"), s);
  if (!e) return reportError(e.error());
  if (p.has("--json")) {
    std::fputs(estimate::speculativeJson(*e).c_str(), stdout);
    return 0;
  }
  std::fputs(estimate::formatSpeculative(*e).c_str(), stdout);
  if (p.has("--sections")) std::fputs(estimate::formatSections(e->verify).c_str(), stdout);
  return 0;
}

}  // namespace

int estimateCommand(const std::vector<std::string>& args) {
  ArgParser p = estimateFlags();
  if (auto err = p.parse(args); !err.empty()) return usageError(err);
  if (p.has("--help")) {
    std::fputs(p.help(false).c_str(), stdout);
    return 0;
  }
  if (p.positional().size() > 1) return usageError("estimate: unexpected argument '" + p.positional()[1] + "'");
  if (auto rc = applyMaxMemory(p)) return *rc;
  estimate::PefEstimateRequest r;
  if (auto st = readRequest(p, r); !st) return reportError(st.error());
  if (p.has("--draft-pef") || p.has("--acceptance") || p.has("--draft-tokens")) return speculativeCommand(p, r);
  auto e = estimate::estimatePef(r);
  if (!e) return reportError(e.error());
  if (p.has("--json")) {
    std::fputs(estimate::estimateJson(*e).c_str(), stdout);
    return 0;
  }
  std::fputs(estimate::formatEstimate(*e).c_str(), stdout);
  if (p.has("--sections")) std::fputs(estimate::formatSections(*e).c_str(), stdout);
  return 0;
}

}  // namespace dfc::cli
