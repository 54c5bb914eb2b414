#pragma once
// --compiler-mode: compiler decisions tuned for a kind of model.
//   "" (the default): the generic heuristics.
//   "nlp" (transformer graphs) changes exactly three decisions:
//     1. -o1: the fusion rule list is `nlp` instead of `default` (an explicit
//        --o1-rule-list still wins);
//     2. -o3: hypersection detection is on, as with --enable-hypersection: one
//        subgraph per top-level hyperfunction ("h.3") per role, so a section never
//        spans two layers and repeated layers compile once;
//     3. -o3: the mapper keeps each attention block (a run of consecutive nodes of
//        one ".../attn" or ".../attention" scope) within one section when the block
//        fits in a section: it closes the current section before the block rather
//        than cutting greedily in the middle of attention. A block larger than a
//        section is still cut greedily.
#include <string>
#include <string_view>

#include "support/Error.h"

namespace dfc::partition {

enum class CompilerMode { Default, Nlp };

// "" -> Default, "nlp" -> Nlp; anything else is an error naming --compiler-mode.
Expected<CompilerMode> parseCompilerMode(const std::string& text);

// The -o1 rule list used when none is given: "default", or "nlp" in nlp mode.
std::string defaultO1RuleList(CompilerMode mode);

// The attention block a scope belongs to: "h.3/attn/c_attn" -> "h.3/attn",
// "layer.0/attention" -> "layer.0/attention"; "" when it is not inside attention.
std::string_view attentionScope(std::string_view scope);

}  // namespace dfc::partition
