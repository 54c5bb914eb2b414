#pragma once
// --compiler-configs-file: a YAML (or JSON, its subset) file overriding the
// compiler's tuning knobs. Keys are "<group>.<knob>", written flat
// ("placer.max_moves: 100000") or nested ("placer: {max_moves: 100000}").
// An unknown key or a value out of range is refused naming the file, line and
// key (and, for an unknown key, listing the known ones). The effective
// configuration is stored in the PEF's meta and printed by `dfc inspect --config`.
#include <string>
#include <vector>

#include "kernelc/Linker.h"
#include "support/Error.h"

namespace dfc::driver {

struct CompilerConfig {
  kernelc::LinkOptions link;  // placer effort and router knobs
};

// Every key with its one-line description, in listing order.
struct CompilerKnobInfo {
  std::string key;
  std::string doc;
};
std::vector<CompilerKnobInfo> compilerKnobs();

Expected<CompilerConfig> loadCompilerConfig(const std::string& path);
// The same from text; errors name `path` and the line.
Expected<CompilerConfig> parseCompilerConfig(const std::string& text, const std::string& path);
// {"placer.max_moves":400000,...}: every knob's effective value.
std::string compilerConfigJson(const CompilerConfig& config);

}  // namespace dfc::driver
