#pragma once
// The .dfir text form: printGraph writes it, parseGraph (Parser.h) reads it.
// A graph printed, parsed and printed again gives the same text byte for byte.
#include <string>

#include "ir/Graph.h"

namespace dfc::ir {

struct PrintOptions {
  bool withWeights = false;   // print Param data inline
  bool withConstData = true;  // print Const data inline (the PEF keeps it in its weights chunk instead)
};

std::string printGraph(const Graph& g, const PrintOptions& opts = {});

// Text-form helpers shared with the parser: a name printed bare when it is
// simple ([A-Za-z0-9_./]+), quoted with escapes otherwise.
bool isBareName(std::string_view name);
std::string quoteString(std::string_view s);

}  // namespace dfc::ir
