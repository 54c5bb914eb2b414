#include <cstdio>
#include <string>

#include "Commands.h"
#include "CompileFlags.h"
#include "TerminalProgress.h"
#include "driver/compile/Compiler.h"
#include "support/Logging.h"
#include "support/SizeBudget.h"

namespace dfc::cli {

namespace {

// "18 forward, 22 backward, 10 optimizer": the roles this compile has, in the
// table's order ("0 accumulate" on every compile without accumulation is noise).
std::string sectionsByRole(const driver::CompileResult& r) {
  std::string out;
  for (const ir::RoleInfo& role : ir::roles()) {
    if (r.sections(role.role) == 0) continue;
    out += (out.empty() ? "" : ", ") + std::to_string(r.sections(role.role)) + " " + std::string(role.name);
  }
  return out;
}

void printSummary(const driver::CompileOptions& o, const driver::CompileResult& r) {
  std::printf("Compiled %s: %d nodes -> %d sections (%s), %lld parameters\n", o.model.c_str(), r.numNodes,
              r.numSections, sectionsByRole(r).c_str(), static_cast<long long>(r.numParams));
  if (r.kvCacheLen > 0)
    std::printf("Decode step (%s per sequence): KV cache of %lld rows, %s of K and V caches\n",
                o.decodeTokens > 1 ? (std::to_string(o.decodeTokens) + " tokens").c_str() : "one token",
                static_cast<long long>(r.kvCacheLen), support::formatBytes(static_cast<uint64_t>(r.kvCacheBytes)).c_str());
  std::printf("Estimated chip latency per step: %.1f us; compile time %.0f ms\n", r.estLatencyUs, r.compileMs);
  std::printf("Host memory for the CPU run: %.1f MiB (%.1f MiB arena for a step's intermediates, %.1f MiB params, state "
              "and inputs)\n", static_cast<double>(r.hostArenaBytes + r.hostPersistentBytes) / 1048576.0,
              static_cast<double>(r.hostArenaBytes) / 1048576.0, static_cast<double>(r.hostPersistentBytes) / 1048576.0);
  if (r.hypersectionInstances > r.hypersectionsUnique)
    std::printf("hypersections: %d unique, %d instances; ~%.2f ms saved\n", r.hypersectionsUnique,
                r.hypersectionInstances, r.compileMsSavedEstimate);
  if (r.numBitfiles > 0) {
    std::printf("Placed %d bitfiles: %lld hops on the on-chip network (row-major placement: %lld)\n", r.numBitfiles,
                static_cast<long long>(r.placedHops), static_cast<long long>(r.rowMajorHops));
    std::printf("Routed: %lld hops with detours; %s\n", static_cast<long long>(r.routedHops),
                r.overusedLinks == 0 ? "every link within capacity"
                                     : (std::to_string(r.overusedLinks) +
                                        " links over capacity (written because of --allow-overuse: not a legal executable)")
                                           .c_str());
  }
  std::printf("PEF: %s\nLog: %s\n", r.pefPath.c_str(), r.logPath.c_str());
}

}  // namespace

int compileCommand(const std::vector<std::string>& args) {
  ArgParser p = compileFlags();
  std::string fourthScale;
  if (auto err = p.parse(liftFourthScalingFactor(args, fourthScale)); !err.empty()) return usageError(err);
  if (p.has("--help")) {
    std::fputs(p.help(p.has("--debug")).c_str(), stdout);
    return 0;
  }
  if (!p.positional().empty()) return usageError("compile: unexpected argument '" + p.positional().front() + "'");
  if (auto flag = p.notImplementedFlag()) return usageError(*flag + " is not implemented yet");
  if (auto rc = applyMaxMemory(p)) return *rc;
  support::LogOptions log{p.has("--verbose"), p.has("--debug"), p.get("--log-dir")};
  if (auto err = support::setupLogging(log); !err.empty()) return usageError(err);

  auto options = compileOptionsFrom(p, fourthScale);
  if (!options) return reportError(options.error());
  if (auto st = options->validate(); !st) return reportError(st.error());
  options->args = options->toArgs();  // what dfstudio records for the same options, too
  auto result = [&] {
    // With -v or --debug the log lines are the progress; otherwise one line on a terminal (TerminalProgress.h).
    if (log.verbose || log.debug) return driver::compile(*options);
    TerminalProgress bar("compile");
    return driver::compile(*options, [&](const driver::CompileProgress& p) { bar.update(p.stage, p.fraction); });
  }();
  if (!result) return reportError(result.error());
  printSummary(*options, *result);
  return 0;
}

}  // namespace dfc::cli
