#pragma once
// `dfc compile`'s flags and how they become driver::CompileOptions. The other
// way round is CompileOptions::toArgs(); parseCompileOptions(toArgs()) gives
// the same options back (tests/unit/cli).
#include <string>
#include <vector>

#include "ArgParser.h"
#include "driver/compile/CompileOptions.h"

namespace dfc::cli {

ArgParser compileFlags();

// --resources-scaling-factors takes 3 or 4 values; the parser takes a fixed
// count, so an optional 4th number is lifted out of the arguments first.
std::vector<std::string> liftFourthScalingFactor(std::vector<std::string> args, std::string& fourth);

// The options the parsed flags give (not yet validated: CompileOptions::validate).
Expected<driver::CompileOptions> compileOptionsFrom(const ArgParser& parsed, const std::string& fourthScale);
// The arguments after `dfc compile`, parsed into options.
Expected<driver::CompileOptions> parseCompileOptions(const std::vector<std::string>& args);

}  // namespace dfc::cli
