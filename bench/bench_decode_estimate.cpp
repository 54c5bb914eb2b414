// Estimated decode speed of Llama 3.1 8B and 70B on 16 SN40L chips (batch 1,
// 2048-token context, 16-bit weights) beside SambaNova's published figures,
// then a sensitivity table: each row changes one assumption and shows what
// the estimate becomes, so the assumptions that matter stand out.
// One arch file (resources/arch/sn40l.yaml) and one set of constants serve
// both models; no per-model factor.
//
// Usage: bench_decode_estimate [--sections LABEL]  (LABEL's per-section figures too)
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "driver/DecodeCases.h"
#include "estimate/PefEstimate.h"

namespace {

using dfc::arch::ArchSpec;
using dfc::estimate::EstimateOptions;

struct Loaded {
  dfc::driver::DecodeCase c;
  dfc::pef::Pef pef;
  double compileS = 0;
};

struct Variant {
  std::string label;
  std::function<void(ArchSpec&, EstimateOptions&)> change;
};

std::vector<Variant> variants() {
  return {
      {"baseline (sn40l.yaml, block fusion)", [](ArchSpec&, EstimateOptions&) {}},
      {"HBM bandwidth x0.75 (the '>75% of peak' SambaNova quotes)", [](ArchSpec& a, EstimateOptions&) { a.hbmGbps *= 0.75; }},
      {"HBM bandwidth x2 (3.2 TB/s)", [](ArchSpec& a, EstimateOptions&) { a.hbmGbps *= 2; }},
      {"HBM bandwidth x3 (4.8 TB/s)", [](ArchSpec& a, EstimateOptions&) { a.hbmGbps *= 3; }},
      {"chip link latency 0.5 us", [](ArchSpec& a, EstimateOptions&) { a.chipLinkLatencyUs = 0.5; }},
      {"chip link latency 2 us", [](ArchSpec& a, EstimateOptions&) { a.chipLinkLatencyUs = 2; }},
      {"chip link bandwidth x0.5", [](ArchSpec& a, EstimateOptions&) { a.chipLinkGbps *= 0.5; }},
      {"chip link bandwidth x4", [](ArchSpec& a, EstimateOptions&) { a.chipLinkGbps *= 4; }},
      {"fusion: one call per section", [](ArchSpec&, EstimateOptions& o) { o.fusion = dfc::estimate::Fusion::Section; }},
      {"call overhead 0 us", [](ArchSpec&, EstimateOptions& o) { o.sectionCallUs = 0; }},
      {"call overhead 20 us", [](ArchSpec&, EstimateOptions& o) { o.sectionCallUs = 20; }},
      {"8-bit weights and cache (1 byte per element)", [](ArchSpec&, EstimateOptions& o) { o.elementBytes = 1; }},
      {"HBM 2 GB per chip (weights spill to DDR)", [](ArchSpec& a, EstimateOptions&) { a.hbmBytes = 2e9; }},
  };
}

double tokensPerS(const Loaded& l, const ArchSpec& arch, const EstimateOptions& o) {
  auto e = dfc::estimate::estimateStep(l.pef.graph, l.pef.plan, true, 1, arch, o);
  return e ? e->throughput : -1;
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

  const EstimateOptions base = dfc::driver::decodeEstimateOptions();
  std::printf("decode on %d x sn40l, batch 1, context %lld, bf16: estimate vs published (artificialanalysis.ai, Sep 2024)\n",
              dfc::driver::kDecodeChips, static_cast<long long>(dfc::driver::kDecodeContext));
  std::printf("%-14s %10s %10s %9s %9s  %s\n", "model", "estimate", "published", "error", "compile", "breakdown per token");
  for (const Loaded& l : cases) {
    auto e = dfc::estimate::estimateStep(l.pef.graph, l.pef.plan, true, 1, *arch, base);
    if (!e) return 1;
    const double err = (e->throughput / l.c.publishedTokensPerS - 1) * 100;
    std::printf("%-14s %10.1f %10.1f %+8.1f%% %8.2fs  compute %.3f ms, memory %.3f ms, comm %.3f ms, overhead %.3f ms; "
                "bound %s; %zu sections\n",
                l.c.label.c_str(), e->throughput, l.c.publishedTokensPerS, err, l.compileS, e->computeUs / 1e3,
                e->memoryUs / 1e3, e->commUs / 1e3, e->overheadUs / 1e3, e->bound.c_str(), e->sections.size());
    if (l.c.label == sectionsOf) std::fputs(dfc::estimate::formatSections(*e).c_str(), stdout);
  }
  std::printf("\nsensitivity: tokens/s with one assumption changed (same change for both models)\n");
  std::printf("%-58s", "assumption");
  for (const Loaded& l : cases) std::printf(" %14s %7s", l.c.label.c_str(), "vs pub");
  std::printf("\n");
  for (const Variant& v : variants()) {
    ArchSpec a = *arch;
    EstimateOptions o = base;
    v.change(a, o);
    std::printf("%-58s", v.label.c_str());
    for (const Loaded& l : cases) {
      const double t = tokensPerS(l, a, o);
      std::printf(" %14.1f %+6.0f%%", t, (t / l.c.publishedTokensPerS - 1) * 100);
    }
    std::printf("\n");
  }
  return 0;
}
