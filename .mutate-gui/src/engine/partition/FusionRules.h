#pragma once
// Fusion rule lists for -o1 (SambaFlow-style YAML). A list holds rules; each
// rule is a small pattern DAG of operator nodes matched against the IR:
//
//   - name: FFN0
//     priority: 20                 # higher is tried first
//     heuristic: "max_nodes: 4"    # optional, see Heuristic
//     pattern:
//       gemm:  {op_type: matmul, child: bias}
//       bias:  {op_type: bias_add, child: act}
//       act:   {op_type: [gelu, relu], required: false}
//
// Node keys: op_type (a name or a list), child / children (pattern nodes that
// consume this node's output), required: false (may be absent; edges pass
// through it), included: false (matched as context, not fused), and
// match_first_option: [{op_type: ...}, ...] (alternatives, the first that
// matches a candidate wins; each may carry its own `included`).
// The root may be a sequence of rules or a map with a `rules:` sequence.
#include <string>
#include <vector>

#include "ir/Op.h"
#include "support/Error.h"

namespace dfc::partition {

struct PatternOption {
  std::vector<ir::OpKind> ops;  // any of these
  bool included = true;         // false: context only, not fused
};

struct PatternNode {
  std::string name;
  std::vector<PatternOption> options;  // one, or the match_first_option alternatives
  std::vector<int> children;           // indices into FusionRule::nodes
  std::vector<int> parents;            // filled by the parser
  bool required = true;
  int line = 0;  // 1-based, in the rule file
};

// Built-in heuristics, written `heuristic: "max_nodes: 8"`, a list of such
// strings, or a map {max_nodes: 8, same_scope: true}:
//   max_nodes: N       reject matches that fuse more than N nodes
//   same_scope         every fused node has the same hyperfunction scope
//   no_external_uses   only the last fused node's results may leave the group
//                      (intermediates stay on chip)
struct Heuristic {
  int maxNodes = 0;  // 0: no limit
  bool sameScope = false;
  bool noExternalUses = false;
};

struct FusionRule {
  std::string name;
  int priority = 0;
  Heuristic heuristic;
  std::vector<PatternNode> nodes;  // topological order (parents before children)
  int line = 0;
};

struct FusionRuleList {
  std::string source;              // file path or "<text>"
  std::vector<FusionRule> rules;   // by priority, highest first (stable)
};

std::vector<std::string> builtinRuleListNames();  // default, nlp, gpt2, bloom, gpt_neox_inf, gpt_neox_train, llama
// Errors name the source, the line and the rule.
Expected<FusionRuleList> parseFusionRules(const std::string& text, const std::string& source);
// A built-in name or a YAML file path.
Expected<FusionRuleList> loadFusionRuleList(const std::string& nameOrPath);

}  // namespace dfc::partition
