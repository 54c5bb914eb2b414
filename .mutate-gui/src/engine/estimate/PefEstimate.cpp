#include "estimate/PefEstimate.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "support/JsonWriter.h"
#include "support/SizeBudget.h"

namespace dfc::estimate {

namespace {

// The integer after `flag` on the PEF's compile command line, or `fallback`
// when the flag is absent. The args are data from a file: a value that is not
// a whole number within [low, high] is refused, naming the PEF.
Expected<int> compiledInt(const pef::PefMeta& meta, const std::string& flag, int fallback, int low, int high) {
  for (size_t i = 0; i + 1 < meta.args.size(); ++i) {
    if (meta.args[i] != flag) continue;
    const std::string& text = meta.args[i + 1];
    int v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v < low || v > high)
      return makeError("the PEF's compile arguments give " + flag + " '" + text.substr(0, 40) + "', not a number in " +
                       std::to_string(low) + ".." + std::to_string(high));
    return v;
  }
  return fallback;
}

bool isDecodeStep(const pef::PefMeta& meta) {
  for (const std::string& a : meta.args)
    if (a == "--decode") return true;
  return false;
}

// Tokens a decode step takes per sequence, from the graph (its token input is
// i64 [B, T]), which is what runs; the compile arguments must agree.
Expected<int> tokensPerStep(const pef::Pef& pef) {
  if (!isDecodeStep(pef.meta)) return 1;
  const ir::ValueId ids = pef.graph.findValue(pef.meta.imageInput);
  if (ids == ir::kNoValue) return makeError("the decode step's token input '" + pef.meta.imageInput + "' is not in its graph");
  const ir::TensorType& t = pef.graph.value(ids).type;
  if (t.rank() != 2 || t.shape[1] < 1) return makeError("the decode step's token input is " + t.toString() + ", not [B, T]");
  auto stated = compiledInt(pef.meta, "--decode-tokens", 1, 1, 1 << 20);
  if (!stated) return stated.error();
  if (*stated != t.shape[1])
    return makeError("the PEF's compile arguments give --decode-tokens " + std::to_string(*stated) +
                     " but its graph takes " + std::to_string(t.shape[1]) + " token(s) a step");
  return static_cast<int>(t.shape[1]);
}

// --arch when given (a preset or a file the user names), else the PEF's arch
// as a preset name: a name read from a file is never opened as a path.
Expected<arch::ArchSpec> archFor(const pef::PefMeta& meta, const std::string& requested) {
  if (!requested.empty()) {
    auto a = arch::loadArch(requested);
    if (!a && !a.error().message().starts_with("--arch")) return a.error().withContext("--arch " + requested);
    return a;
  }
  return arch::loadArchPreset(meta.arch, "the PEF's arch");
}

}  // namespace

Expected<int> compiledChips(const pef::PefMeta& meta) {
  return compiledInt(meta, "--n-chips", 1, 1, arch::kMaxInferenceChips);
}

Expected<StepEstimate> estimatePef(const pef::Pef& pef, PefEstimateRequest r) {
  auto named = [&](const Error& e) { return r.pefPath.empty() ? e : e.withContext(r.pefPath); };
  auto arch = archFor(pef.meta, r.arch);
  if (!arch) return r.arch.empty() ? named(arch.error()) : arch.error();  // a bad --arch is the flag's fault
  auto chips = pef.meta.inference ? compiledChips(pef.meta) : Expected<int>(1);
  if (!chips) return named(chips.error());
  auto tokens = tokensPerStep(pef);
  if (!tokens) return named(tokens.error());
  r.options.chips = r.chips ? *r.chips : *chips;
  r.options.decode |= isDecodeStep(pef.meta);
  auto e = estimateStep(pef.graph, pef.plan, pef.meta.inference, pef.meta.batchSize, *arch, r.options);
  // A step compiled for T tokens a sequence (--decode-tokens) processes T of them.
  if (e && *tokens > 1) {
    e->tokensPerStep = *tokens;
    e->throughput *= *tokens;
  }
  return e;
}

Expected<SpeculativeEstimate> estimateSpeculativePef(const PefEstimateRequest& r, const std::string& draftPath,
                                                     const SpeculativeOptions& speculative) {
  auto target = pef::readPef(r.pefPath, pef::PefUse::View);
  if (!target) return target.error();
  auto draft = pef::readPef(draftPath, pef::PefUse::View);
  if (!draft) return draft.error().withContext("--draft-pef");
  if (!isDecodeStep(target->meta))
    return makeError(r.pefPath + ": not a decode step; speculative decoding needs one (dfc compile --inference --decode)");
  if (!isDecodeStep(draft->meta))
    return makeError("--draft-pef " + draftPath + ": not a decode step (dfc compile --inference --decode)");
  for (const auto& [pef, path] : {std::pair{&*target, r.pefPath}, std::pair{&*draft, draftPath}}) {
    auto tokens = tokensPerStep(*pef);
    if (!tokens) return tokens.error().withContext(path);
    if (*tokens > 1)
      return makeError(path + " takes several tokens a step (--decode-tokens): the estimate models the verification "
                              "of k + 1 tokens from one-token steps, give those");
  }
  auto arch = archFor(target->meta, r.arch);
  if (!arch) return arch.error().withContext(r.pefPath);
  auto chips = compiledChips(target->meta);
  if (!chips) return chips.error().withContext(r.pefPath);
  EstimateOptions o = r.options;
  o.chips = r.chips ? *r.chips : *chips;
  return estimateSpeculative({target->graph, target->plan, target->meta.batchSize},
                             {draft->graph, draft->plan, draft->meta.batchSize}, *arch, o, speculative);
}

Expected<StepEstimate> estimatePef(const PefEstimateRequest& r) {
  auto pef = pef::readPef(r.pefPath, pef::PefUse::View);
  if (!pef) return pef.error();
  return estimatePef(*pef, r);
}

namespace {

std::string bytesText(double b) {
  if (std::isinf(b)) return "unlimited";
  return support::formatBytes(static_cast<uint64_t>(b));
}

std::string line(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

const char* fusionText(Fusion f) {
  switch (f) {
    case Fusion::Block: return "block (the step streamed as one pipelined call, the loop over layers inside it)";
    case Fusion::Layer: return "layer (one pipelined call per decoder layer, drained between calls)";
    case Fusion::Section: return "section (one call per section; loads, compute and collectives in turn)";
  }
  return "";
}

}  // namespace

std::string formatEstimate(const StepEstimate& e) {
  constexpr int H = static_cast<int>(Tier::Hbm), D = static_cast<int>(Tier::Ddr), S = static_cast<int>(Tier::Sram);
  std::string out;
  out += line("estimate: %s on %d x %s%s, %g bytes per element on chip\n", e.kind.c_str(), e.chips, e.arch.c_str(),
              e.chips > 1 ? " (tensor parallel)" : "", e.elementBytes);
  if (e.kvCacheLen > 0) out += line("KV cache: %lld positions per sequence\n", static_cast<long long>(e.kvCacheLen));
  out += line("fusion: %s; %d call(s) per step\n", fusionText(e.fusion), e.calls);
  out += line("throughput: %.1f %s (batch %lld%s), step %.4f ms\n", e.throughput, e.unit.c_str(),
              static_cast<long long>(e.batch),
              e.tokensPerStep > 1 ? (", " + std::to_string(e.tokensPerStep) + " tokens a step").c_str() : "",
              e.stepUs / 1e3);
  out += line("time per step: compute %.4f ms, memory %.4f ms (HBM %.4f, DDR %.4f), communication %.4f ms, "
              "call overhead %.4f ms\n",
              e.computeUs / 1e3, e.memoryUs / 1e3, e.tierUs[H] / 1e3, e.tierUs[D] / 1e3, e.commUs / 1e3,
              e.overheadUs / 1e3);
  out += line("bound: %s\n", e.bound.c_str());
  out += line("share of peak: %.1f%% of %g TFLOP/s", 100 * e.flopShare, e.peakTflops);
  if (e.tierGbps[H] > 0) out += line("; HBM %.1f%% of %g GB/s", 100 * e.tierShare[H], e.tierGbps[H]);
  out += line("; DDR %.1f%% of %g GB/s", 100 * e.tierShare[D], e.tierGbps[D]);
  if (e.chips > 1) out += line("; chip link %.1f%% of %g GB/s", 100 * e.linkShare, e.linkGbps);
  out += "\n";
  out += line("resident per chip: HBM %s of %s, DDR %s of %s; SRAM %s on chip\n", bytesText(e.residentBytes[H]).c_str(),
              bytesText(e.tierCapacity[H]).c_str(), bytesText(e.residentBytes[D]).c_str(),
              bytesText(e.tierCapacity[D]).c_str(), bytesText(e.tierCapacity[S]).c_str());
  return out;
}

std::string formatSections(const StepEstimate& e) {
  std::string out = line("%-30s %12s %12s %12s %10s %10s %10s %10s\n", "section", "MFLOP/chip", "HBM KB/chip",
                         "DDR KB/chip", "compute us", "memory us", "comm us", "call us");
  for (const SectionCost& c : e.sections)
    out += line("%-30s %12.3f %12.1f %12.1f %10.3f %10.3f %10.3f %10.3f\n", c.name.c_str(), c.flop / 1e6,
                c.tierBytes[static_cast<int>(Tier::Hbm)] / 1e3, c.tierBytes[static_cast<int>(Tier::Ddr)] / 1e3,
                c.computeUs, c.memoryUs, c.commUs, c.callUs);
  return out;
}

std::string estimateJson(const StepEstimate& e) {
  support::JsonWriter w;
  w.beginObject().field("kind", e.kind).field("arch", e.arch).field("chips", e.chips);
  w.field("fusion", fusionName(e.fusion)).field("calls", e.calls).field("element_bytes", e.elementBytes);
  w.field("batch", e.batch).field("tokens_per_step", e.tokensPerStep);
  w.field("kv_cache_len", e.kvCacheLen).field("throughput", e.throughput).field("unit", e.unit);
  w.field("step_us", e.stepUs).field("compute_us", e.computeUs).field("memory_us", e.memoryUs);
  w.field("comm_us", e.commUs).field("overhead_us", e.overheadUs).field("bound", e.bound);
  w.field("flop_share", e.flopShare).field("link_share", e.linkShare).field("peak_tflops", e.peakTflops);
  w.field("link_gbps", e.linkGbps).key("tiers").beginArray();
  for (Tier t : {Tier::Sram, Tier::Hbm, Tier::Ddr}) {
    const int i = static_cast<int>(t);
    w.beginObject().field("tier", tierName(t)).field("gbps", e.tierGbps[i]).field("time_us", e.tierUs[i]);
    w.field("share", e.tierShare[i]).field("resident_bytes", e.residentBytes[i]);
    w.field("capacity_bytes", e.tierCapacity[i]).endObject();  // infinite capacity: null
  }
  w.endArray().key("sections").beginArray();
  for (const SectionCost& c : e.sections) {
    w.beginObject().field("section", c.section).field("name", c.name).field("flop", c.flop);
    w.field("hbm_bytes", c.tierBytes[static_cast<int>(Tier::Hbm)]);
    w.field("ddr_bytes", c.tierBytes[static_cast<int>(Tier::Ddr)]).field("link_bytes", c.linkBytes);
    w.field("compute_us", c.computeUs).field("memory_us", c.memoryUs).field("comm_us", c.commUs);
    w.field("fill_us", c.fillUs).field("call_us", c.callUs).endObject();
  }
  w.endArray().endObject();
  return w.take() + "\n";
}

}  // namespace dfc::estimate

namespace dfc::estimate {

std::string formatSpeculative(const SpeculativeEstimate& s) {
  std::string out = formatEstimate(s.target);
  out += line("speculative decoding: acceptance %.3g, %d draft token(s) per cycle%s\n", s.acceptance, s.draftTokens,
              s.chosen ? " (the best of 1..16)" : "");
  out += line("draft step %.4f ms (%.1f tokens/s alone); verification of %d tokens %.4f ms (target step %.4f ms)\n",
              s.draft.stepUs / 1e3, s.draft.throughput, s.draftTokens + 1, s.verify.stepUs / 1e3, s.target.stepUs / 1e3);
  out += line("cycle %.4f ms yields %.3f tokens: %.1f tokens/s (x%.2f over the target alone)\n", s.cycleUs / 1e3,
              s.tokensPerCycle, s.throughput, s.target.throughput > 0 ? s.throughput / s.target.throughput : 0.0);
  if (s.sweep.size() > 1) {
    out += "draft tokens:";
    for (const SpeculativePoint& p : s.sweep) out += line(" %d: %.0f", p.draftTokens, p.throughput);
    out += " tokens/s\n";
  }
  return out;
}

std::string speculativeJson(const SpeculativeEstimate& s) {
  support::JsonWriter w;
  w.beginObject().field("acceptance", s.acceptance).field("draft_tokens", s.draftTokens).field("chosen", s.chosen);
  w.field("tokens_per_cycle", s.tokensPerCycle).field("cycle_us", s.cycleUs).field("throughput", s.throughput);
  w.field("unit", s.target.unit).field("draft_step_us", s.draft.stepUs).field("verify_step_us", s.verify.stepUs);
  w.field("target_step_us", s.target.stepUs).field("target_throughput", s.target.throughput);
  w.key("sweep").beginArray();
  for (const SpeculativePoint& p : s.sweep) {
    w.beginObject().field("draft_tokens", p.draftTokens).field("tokens_per_cycle", p.tokensPerCycle);
    w.field("cycle_us", p.cycleUs).field("verify_us", p.verifyUs).field("throughput", p.throughput).endObject();
  }
  w.endArray().endObject();
  return w.take() + "\n";
}

}  // namespace dfc::estimate
