// Compile time and peak compiler memory at LLM scale (issues 36 and 37): each case is one
// `dfc compile` run as a child process (wall time around it; its peak RSS from
// wait4's rusage), then its PEF is read for the estimated chip time per step
// and the share of the arch's peak FLOP/s that implies:
//   share = FLOP per step / (estimated chip seconds per step x peak FLOP/s of the chips).
// It is <= 100% because every section's estimate is at least its FLOP at the
// chips' peak (arch/CostModel.h: compute_us >= flop / peak), and the step is
// the sum of its sections. A compile that leaves links over capacity fails
// (exit 2), so a case that compiles has 0 links over capacity.
//
// Cases are data: a label, the goal in seconds, and the `dfc compile` flags
// (a zoo model name and its shape). Add rows here, or at run time with
//   --case 'LABEL;GOAL_S;--model NAME --num-layers N ...'
// Usage: bench_compile_scale [--dfc PATH] [--only LABEL] [--case ...]
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "arch/ArchSpec.h"
#include "driver/decode/DecodeCases.h"
#include "estimate/PefEstimate.h"
#include "pef/Pef.h"
#include "support/SizeBudget.h"

using namespace dfc;
namespace fs = std::filesystem;

namespace {

struct Case {
  std::string label;
  double goalSeconds = 0;
  std::string flags;       // dfc compile flags, whitespace separated
  std::string
      decodeCase;  // a published decode case (driver/decode/DecodeCases.h): its plan-only estimate beside the PEF's
};

const std::string kLlama31_8b =
    "--model llama --num-layers 32 --hidden-size 4096 --num-heads 32 --num-kv-heads 8 --intermediate-size 14336 "
    "--vocab-size 128256";
const std::string kLlama31_70b =
    "--model llama --num-layers 80 --hidden-size 8192 --num-heads 64 --num-kv-heads 8 --intermediate-size 28672 "
    "--vocab-size 128256";
const std::string kLlama31_405b =
    "--model llama --num-layers 126 --hidden-size 16384 --num-heads 128 --num-kv-heads 8 --intermediate-size 53248 "
    "--vocab-size 128256";
const std::string kServed = " -b 1 --arch sn40l --n-chips 16 -o3 --enable-hypersection";
const std::string kDecode = " --inference --decode --kv-cache-len 2048" + kServed;

// Default flags throughout: no --resources-scaling-factors and no --max-memory (a compile allocates no
// weights: they are init recipes; the budget guards a run).
const std::vector<Case> kCases = {
    // Depth alone (issue 36): a 1024-layer gpt2-mini in < 5 s, its time per layer flat from 256 layers on
    // (the memory planner was quadratic in buffers: 2.2 / 7.6 / 30.6 s).
    {"gpt2-mini-256-layers", 2, "--model gpt2-mini --num-layers 256", ""},
    {"gpt2-mini-512-layers", 3, "--model gpt2-mini --num-layers 512", ""},
    {"gpt2-mini-1024-layers", 5, "--model gpt2-mini --num-layers 1024", ""},
    // Issue 37: Llama 3.1 as SambaNova serves it, 16 SN40L, and GPT-2 XL training on 2 SN30.
    {"llama3.1-8b-decode-x16", 10, kLlama31_8b + kDecode, "llama3.1-8b"},
    {"llama3.1-8b-prefill-x16", 10, kLlama31_8b + " --inference --seq-len 2048" + kServed, ""},
    {"llama3.1-70b-decode-x16", 30, kLlama31_70b + kDecode, "llama3.1-70b"},
    {"llama3.1-405b-decode-x16", 60, kLlama31_405b + kDecode, ""},
    {"gpt2-xl-train-sn30-x2", 30,
     "--model gpt2 --num-layers 48 --hidden-size 1600 --num-heads 25 --seq-len 1024 -b 32 -o3 --enable-hypersection "
     "--arch sn30 --n-chips 2", ""},
    {"gpt2-xl-train-sn30", 3,
     "--model gpt2 --num-layers 48 --hidden-size 1600 --num-heads 25 --seq-len 1024 -b 32 -o3 --enable-hypersection "
     "--arch sn30", ""},
    {"llama2-7b-train-sn40l", 5,
     "--model llama --num-layers 32 --hidden-size 4096 --num-heads 32 --intermediate-size 11008 --seq-len 4096 -b 1 "
     "-o3 --enable-hypersection --arch sn40l", ""},
    {"llama2-7b-infer-sn40l", 5,
     "--model llama --num-layers 32 --hidden-size 4096 --num-heads 32 --intermediate-size 11008 --seq-len 4096 -b 1 "
     "-o3 --enable-hypersection --arch sn40l --inference", ""},
    {"llama2-70b-infer-sn40l-x8", 10,
     "--model llama --num-layers 80 --hidden-size 8192 --num-heads 64 --num-kv-heads 8 --intermediate-size 28672 "
     "--seq-len 4096 -b 1 -o3 --enable-hypersection --arch sn40l --n-chips 8 --inference", ""},
};

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench_compile_scale: %s\n", what.c_str());
  std::exit(1);
}

std::vector<std::string> split(const std::string& flags) {
  std::vector<std::string> out;
  std::istringstream in(flags);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::string flagValue(const std::vector<std::string>& args, const std::string& flag, const std::string& fallback) {
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == flag) return args[i + 1];
  return fallback;
}

struct Measured {
  int status = -1;
  double seconds = 0;
  long maxRssKb = 0;
};

// Runs `argv` with stdout and stderr into `logPath`; its own rusage, not the bench's.
Measured runChild(const std::vector<std::string>& argv, const std::string& logPath) {
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) die("fork failed");
  if (pid == 0) {
    int fd = open(logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) < 0) die("wait4 failed");
  Measured m;
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  m.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  m.maxRssKb = usage.ru_maxrss;
  return m;
}

// A published decode case: the PEF's estimate (what dfc estimate prints) and
// the plan-only compile's (bench_decode_estimate's), which must be equal, beside the published figure.
// Run after the children: a plan loaded here would count in the peak RSS of every child forked later.
void printDecodeEstimates(const Case& c, const fs::path& work) {
  auto pef = pef::readPef((work / c.label / (c.label + ".pef")).string(), pef::PefUse::View);
  if (!pef) return;  // the compile failed (said above)
  for (const driver::DecodeCase& d : driver::publishedDecodeCases()) {
    if (d.label != c.decodeCase) continue;
    auto planned = driver::compileDecodeCase(d, (work / (c.label + "-plan")).string());
    if (!planned) die(planned.error().message());
    auto sn40l = arch::loadArch("sn40l");
    if (!sn40l) die(sn40l.error().message());
    auto fromPlan = estimate::estimateStep(planned->graph, planned->plan, true, 1, *sn40l, driver::decodeEstimateOptions());
    auto fromPef = estimate::estimatePef(*pef, estimate::PefEstimateRequest{});
    if (!fromPlan || !fromPef) die(c.label + ": " + (!fromPlan ? fromPlan.error() : fromPef.error()).message());
    std::printf("%s decode: %.1f tokens/s from the PEF, %.1f from the plan alone (%s); published %.0f as served%s\n",
                c.label.c_str(), fromPef->throughput, fromPlan->throughput,
                fromPef->stepUs == fromPlan->stepUs ? "equal" : "DIFFERENT", d.publishedTokensPerS,
                d.draft.empty() ? "" : (" (speculative, " + d.draft + " drafting: bench_decode_estimate)").c_str());
  }
}

void runCase(const Case& c, const std::string& dfc, const fs::path& work) {
  std::vector<std::string> flags = split(c.flags);
  std::vector<std::string> argv{dfc, "compile"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  const fs::path out = work / c.label;
  for (const char* extra : {"--pef-name", c.label.c_str(), "--output-folder", out.c_str(), "--db", "-"})
    argv.emplace_back(extra);
  const std::string log = (work / (c.label + ".log")).string();
  Measured m = runChild(argv, log);
  if (m.status != 0) {
    std::printf("%-26s FAILED (exit %d; see %s)\n", c.label.c_str(), m.status, log.c_str());
    return;
  }
  auto pef = pef::readPef((out / (c.label + ".pef")).string(), pef::PefUse::View);
  if (!pef) die(c.label + ": " + pef.error().message());
  double flop = 0, chipUs = 0;
  for (int id : pef->plan.schedule) {
    flop += pef->plan.sections[static_cast<size_t>(id)].estimate.flop;
    chipUs += pef->plan.sections[static_cast<size_t>(id)].estimate.latencyUs;
  }
  size_t tiled = 0;
  for (const auto& s : pef->plan.sections) tiled += s.tiling.size();
  auto arch = arch::loadArch(flagValue(flags, "--arch", "native"));
  if (!arch) die(arch.error().message());
  auto chips = arch::scaleArch(*arch, std::stoi(flagValue(flags, "--n-chips", "1")), 0, arch::kMaxInferenceChips);
  if (!chips) die(chips.error().message());
  double share = flop / (chipUs * 1e-6) / (chips->peakTflops * 1e12);
  char goal[32];
  std::snprintf(goal, sizeof goal, "%s %gs", m.seconds < c.goalSeconds ? "<" : "NOT <", c.goalSeconds);
  const bool memoryOk = m.maxRssKb < 1024L * 1024L;
  // Compile time per layer: flat as the layer count grows when every stage is linear in the graph.
  const double layers = std::atof(flagValue(flags, "--num-layers", "0").c_str());
  std::printf("%-26s %7.2f s %-9s %6.0f MiB %-6s %5zu %5zu %5zu %10.1f ms %9.1f TFLOP %6.1f%% %8.2f\n",
              c.label.c_str(), m.seconds, goal, static_cast<double>(m.maxRssKb) / 1024.0, memoryOk ? "< 1GiB" : "NOT",
              pef->plan.sections.size(), pef->plan.hypersections.size(), tiled, chipUs / 1e3, flop / 1e12,
              100.0 * share, layers > 0 ? m.seconds * 1e3 / layers : 0.0);
  std::fflush(stdout);
  if (c.decodeCase.empty()) fs::remove_all(out);  // decode cases: estimated after every child ran (below)
}

}  // namespace

int main(int argc, char** argv) {
  std::string dfc = DFC_BINARY_DIR "/app/dfc/dfc", only;
  std::vector<Case> cases = kCases;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) die("usage: bench_compile_scale [--dfc PATH] [--only LABEL] [--case 'LABEL;GOAL_S;FLAGS']");
    std::string v = argv[++i];
    if (a == "--dfc") dfc = v;
    else if (a == "--only") only = v;
    else if (a == "--case") {
      size_t p1 = v.find(';'), p2 = v.find(';', p1 == std::string::npos ? 0 : p1 + 1);
      if (p1 == std::string::npos || p2 == std::string::npos) die("--case wants 'LABEL;GOAL_S;FLAGS'");
      cases.push_back({v.substr(0, p1), std::atof(v.substr(p1 + 1, p2 - p1 - 1).c_str()), v.substr(p2 + 1), ""});
    } else {
      die("unknown argument " + a);
    }
  }
  // The PEF is read for its plan; its graph's host memory (checked against the
  // budget on load) is what the host run would need, not what reading takes.
  support::setMemoryBudget(uint64_t{1} << 40);
  const fs::path work = fs::temp_directory_path() / ("bench_compile_scale." + std::to_string(getpid()));
  fs::create_directories(work);
  std::printf("dfc: %s (each case a child process: wall time, its peak RSS; goal in seconds after the time)\n",
              dfc.c_str());
  std::printf("%-26s %9s %-9s %10s %-6s %5s %5s %5s %13s %15s %7s %8s\n", "case", "compile", "goal", "peak RSS", "",
              "sects", "hyper", "tiled", "est chip/step", "FLOP/step", "of peak", "ms/layer");
  for (const Case& c : cases) {
    if (!only.empty() && c.label != only) continue;
    std::printf("  %s\n", ("dfc compile " + c.flags).c_str());
    runCase(c, dfc, work);
  }
  spdlog::set_level(spdlog::level::warn);
  for (const Case& c : cases)
    if (!c.decodeCase.empty() && (only.empty() || c.label == only)) printDecodeEstimates(c, work);
  fs::remove_all(work);
  return 0;
}
