#pragma once
// --mac-human-decision FILE: a person's mapping decisions, which the mapper
// honours or refuses naming the decision (file:line) and why. The file is a
// YAML list; each entry is one decision:
//
//   - together: h.0/mlp/*        # these operators run in one section
//     role: forward              # optional: only operators of this role
//   - cut_before: h.1/attn/matmul  # a section boundary before each of these
//   - nodes: [h.2/*, h.3/*]      # with --model-parallel: their sections on chip 1
//     chip: 1
//   - together: [ln_f/*, lm_head/*]
//     chip: 1                    # a together group may name its chip too
//
// A pattern is an operator's name ("h.0/attn/matmul", which starts with its
// scope) or a glob over names: `*` any run of characters, `?` one. Every
// pattern must match some operator. Operators no `chip` decision names run on
// chip 0.
#include <optional>
#include <string>
#include <vector>

#include "ir/Graph.h"
#include "ir/Role.h"
#include "support/Error.h"

namespace dfc::mapping {

enum class DecisionKind { Together, CutBefore, Chip };

struct Decision {
  DecisionKind kind = DecisionKind::Together;
  std::vector<std::string> patterns;  // names or globs, as written
  int chip = -1;                      // -1: no chip named
  std::optional<ir::NodeRole> role;   // only operators of this role
  int line = 0;                       // 1-based, in the file
};

struct DecisionFile {
  std::string path;  // as given on the command line (errors name it)
  std::vector<Decision> decisions;

  // "decisions.yaml:7": where a decision is, for messages.
  std::string where(const Decision& d) const { return path + ":" + std::to_string(d.line); }
  bool empty() const { return decisions.empty(); }
  bool operator==(const DecisionFile&) const = default;
};

std::string_view decisionKindName(DecisionKind kind);  // "together", "cut_before", "chip"
// "h.0/mlp/*" or "[h.2/*, h.3/*]": the patterns as one would write them.
std::string patternText(const Decision& d);

Expected<DecisionFile> loadDecisions(const std::string& path);
// The same from text; errors are "PATH:LINE: key 'K': what is wrong".
Expected<DecisionFile> parseDecisions(const std::string& text, const std::string& path);

// The file as YAML that parseDecisions reads back to the same decisions
// (lines aside); `header` becomes comment lines at the top (control
// characters and invalid UTF-8 in it become spaces). A pattern that is not
// valid UTF-8 cannot be written (nor read: parseDecisions refuses it).
Expected<std::string> formatDecisions(const DecisionFile& file, const std::string& header = {});

// Glob match of a whole name: `*` any run (also '/'), `?` one character.
bool globMatch(std::string_view pattern, std::string_view name);
// The operators a decision names, in graph order (its role filter applied).
std::vector<ir::NodeId> matchDecision(const ir::Graph& graph, const Decision& d);

}  // namespace dfc::mapping
