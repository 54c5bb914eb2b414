#pragma once
// A user's .dfir model file: read as a bounded regular file, parsed, its
// declared sizes checked against the memory budget, and verified before any
// pass runs, so an invalid model is reported against its own file:line
// ("m.dfir:4: node 'mm' (matmul): ...", exit 2), never blamed on a pass.
#include <string>

#include "ir/Graph.h"
#include "ir/Verifier.h"
#include "support/Error.h"

namespace dfc::ir {

// Params may lack data (the compiler gives them initial weights).
Expected<Graph> loadDfirFile(const std::string& path);
// The same checks on text already read; `source` names it in errors.
Expected<Graph> parseDfirModel(std::string_view text, const std::string& source);

}  // namespace dfc::ir
