#pragma once
// Reads the .dfir text form written by printGraph (Printer.h).
#include <string>
#include <string_view>

#include "ir/Graph.h"
#include "support/Error.h"

namespace dfc::ir {

// Errors read "sourceName:LINE:COL: message". Params declared without data get
// no initializer; the verifier decides whether that is acceptable.
Expected<Graph> parseGraph(std::string_view text, const std::string& sourceName);

}  // namespace dfc::ir
