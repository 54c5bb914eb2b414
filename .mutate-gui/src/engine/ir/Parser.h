#pragma once
// Reads the .dfir text form written by printGraph (Printer.h).
#include <string>
#include <string_view>
#include <vector>

#include "ir/Graph.h"
#include "support/Error.h"

namespace dfc::ir {

// The line each node and value was declared on (by id), for errors found
// after parsing (ir/DfirFile.h reports verifier errors at them).
struct SourceLines {
  std::vector<int> node;
  std::vector<int> value;
};

// Errors read "sourceName:LINE:COL: message". Params declared without data get
// no initializer; the verifier decides whether that is acceptable.
Expected<Graph> parseGraph(std::string_view text, const std::string& sourceName, SourceLines* lines = nullptr);

}  // namespace dfc::ir
