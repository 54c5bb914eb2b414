// Estimated decode speed of Llama 3.1 8B and 70B on 16 SN40L chips (batch 1,
// 2048-token context, 16-bit weights) beside SambaNova's published figures,
// each as served: 8B plain, 70B speculative with the 8B as its draft
// (DecodeCase::draft). Then a sensitivity table: each row changes one
// assumption and shows what both estimates become, so the assumptions that
// matter stand out. One arch file (resources/arch/sn40l.yaml) and one set of
// constants serve both models; no per-model factor.
//
// Usage: bench_decode_estimate [--sections LABEL]  (LABEL's per-section figures too)
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "driver/decode/DecodeCases.h"
#include "estimate/PefEstimate.h"

namespace {

using dfc::arch::ArchSpec;
using dfc::estimate::EstimateOptions;

struct Loaded {
  dfc::driver::DecodeCase c;
  dfc::pef::Pef pef;
  double compileS = 0;
};

struct Assumptions {
  ArchSpec arch;
  EstimateOptions options;
  double acceptance = dfc::driver::kDraftAcceptance;  // < 0: no speculative decoding
  int draftTokens = 0;                                // 0: the fastest k
};

struct Variant {
  std::string label;
  std::function<void(Assumptions&)> change;
};

std::vector<Variant> variants() {
  using dfc::estimate::Fusion;
  return {
      {"baseline (sn40l.yaml: HBM 1600 GB/s x 0.9; block fusion; acceptance 0.8)", [](Assumptions&) {}},
      {"no speculative decoding", [](Assumptions& a) { a.acceptance = -1; }},
      {"acceptance 0.6", [](Assumptions& a) { a.acceptance = 0.6; }},
      {"acceptance 0.7", [](Assumptions& a) { a.acceptance = 0.7; }},
      {"acceptance 0.9", [](Assumptions& a) { a.acceptance = 0.9; }},
      {"draft tokens 2", [](Assumptions& a) { a.draftTokens = 2; }},
      {"draft tokens 8", [](Assumptions& a) { a.draftTokens = 8; }},
      {"fusion: one call per layer (no kernel looping)", [](Assumptions& a) { a.options.fusion = Fusion::Layer; }},
      {"fusion: one call per section", [](Assumptions& a) { a.options.fusion = Fusion::Section; }},
      {"HBM efficiency 1 (the whole pin rate)", [](Assumptions& a) { a.arch.hbmEfficiency = 1; }},
      {"HBM efficiency 0.75 (the '>75% of peak' SambaNova quotes)", [](Assumptions& a) { a.arch.hbmEfficiency = 0.75; }},
      {"HBM bandwidth x2 (3.2 TB/s)", [](Assumptions& a) { a.arch.hbmGbps *= 2; }},
      {"chip link latency 0.5 us", [](Assumptions& a) { a.arch.chipLinkLatencyUs = 0.5; }},
      {"chip link latency 2 us", [](Assumptions& a) { a.arch.chipLinkLatencyUs = 2; }},
      {"chip link latency 5 us", [](Assumptions& a) { a.arch.chipLinkLatencyUs = 5; }},
      {"chip link bandwidth x0.5", [](Assumptions& a) { a.arch.chipLinkGbps *= 0.5; }},
      {"chip link bandwidth x4", [](Assumptions& a) { a.arch.chipLinkGbps *= 4; }},
      {"call overhead 0 us", [](Assumptions& a) { a.options.sectionCallUs = 0; }},
      {"call overhead 20 us", [](Assumptions& a) { a.options.sectionCallUs = 20; }},
      {"8-bit weights and cache (1 byte per element)", [](Assumptions& a) { a.options.elementBytes = 1; }},
      {"HBM 2 GB per chip (weights spill to DDR)", [](Assumptions& a) { a.arch.hbmBytes = 2e9; }},
  };
}

double servedTokensPerS(const Loaded& l, const std::map<std::string, dfc::pef::Pef>& pefs, const Assumptions& a) {
  auto e = dfc::driver::estimateServed(l.c, pefs, a.arch, a.options, a.acceptance, a.draftTokens);
  return e ? e->tokensPerS : -1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string sectionsOf = argc == 3 && std::string(argv[1]) == "--sections" ? argv[2] : "";
  namespace fs = std::filesystem;
  spdlog::set_level(spdlog::level::warn);  // the compiles' progress lines would bury the table
  const fs::path work = fs::temp_directory_path() / ("bench_decode_estimate." + std::to_string(getpid()));
  auto arch = dfc::arch::loadArch("sn40l");
  if (!arch) {
    std::fprintf(stderr, "bench_decode_estimate: %s\n", arch.error().message().c_str());
    return 1;
  }
  std::vector<Loaded> cases;
  for (const auto& c : dfc::driver::publishedDecodeCases()) {
    const auto t0 = std::chrono::steady_clock::now();
    auto pef = dfc::driver::compileDecodeCase(c, (work / c.label).string());
    if (!pef) {
      std::fprintf(stderr, "bench_decode_estimate: %s: %s\n", c.label.c_str(), pef.error().message().c_str());
      return 1;
    }
    cases.push_back({c, std::move(*pef), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()});
  }
  std::error_code ec;
  fs::remove_all(work, ec);

  std::map<std::string, dfc::pef::Pef> pefs;
  for (const Loaded& l : cases) pefs.emplace(l.c.label, l.pef);
  const Assumptions base{*arch, dfc::driver::decodeEstimateOptions()};
  std::printf("decode on %d x sn40l, batch 1, context %lld, bf16: estimate vs published (artificialanalysis.ai, Sep 2024)\n",
              dfc::driver::kDecodeChips, static_cast<long long>(dfc::driver::kDecodeContext));
  std::printf("%-14s %10s %10s %9s %9s  %s\n", "model", "estimate", "published", "error", "compile", "as served");
  for (const Loaded& l : cases) {
    auto e = dfc::driver::estimateServed(l.c, pefs, base.arch, base.options, base.acceptance);
    if (!e) {
      std::fprintf(stderr, "bench_decode_estimate: %s: %s\n", l.c.label.c_str(), e.error().message().c_str());
      return 1;
    }
    const auto& p = e->plain;
    std::printf("%-14s %10.1f %10.1f %+8.1f%% %8.2fs  ", l.c.label.c_str(), e->tokensPerS, l.c.publishedTokensPerS,
                (e->tokensPerS / l.c.publishedTokensPerS - 1) * 100, l.compileS);
    if (e->speculative) {
      const auto& s = *e->speculative;
      std::printf("speculative, draft %s: acceptance %.2f, k %d, %.2f tokens per %.3f ms cycle (%d draft steps of "
                  "%.3f ms + verify %.3f ms); alone %.1f tokens/s\n",
                  l.c.draft.c_str(), s.acceptance, s.draftTokens, s.tokensPerCycle, s.cycleUs / 1e3, s.draftTokens,
                  s.draft.stepUs / 1e3, s.verify.stepUs / 1e3, p.throughput);
    } else {
      std::printf("plain decode\n");
    }
    std::printf("%-14s %10s %10s %9s %9s  step %.3f ms: compute %.3f, memory %.3f, comm %.3f, overhead %.3f ms; "
                "bound %s; %zu sections\n",
                "", "", "", "", "", p.stepUs / 1e3, p.computeUs / 1e3, p.memoryUs / 1e3, p.commUs / 1e3,
                p.overheadUs / 1e3, p.bound.c_str(), p.sections.size());
    if (l.c.label == sectionsOf) std::fputs(dfc::estimate::formatSections(p).c_str(), stdout);
  }
  std::printf("\nsensitivity: tokens/s as served with one assumption changed (same change for both models)\n");
  std::printf("%-72s", "assumption");
  for (const Loaded& l : cases) std::printf(" %14s %7s", l.c.label.c_str(), "vs pub");
  std::printf("\n");
  for (const Variant& v : variants()) {
    Assumptions a = base;
    v.change(a);
    std::printf("%-72s", v.label.c_str());
    for (const Loaded& l : cases) {
      const double t = servedTokensPerS(l, pefs, a);
      std::printf(" %14.1f %+6.0f%%", t, (t / l.c.publishedTokensPerS - 1) * 100);
    }
    std::printf("\n");
  }
  return 0;
}
