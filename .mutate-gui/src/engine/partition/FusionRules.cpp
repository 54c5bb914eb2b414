#include "partition/FusionRules.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

#include "support/FileUtil.h"

namespace dfc::partition {
namespace fs = std::filesystem;

std::vector<std::string> builtinRuleListNames() {
  return {"default", "nlp", "gpt2", "bloom", "gpt_neox_inf", "gpt_neox_train", "llama"};
}

namespace {

// Rule lists are looked up next to the installed binary first, then in the source tree.
std::string builtinPath(const std::string& name) {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (fs::path dir : {exe.parent_path() / "../share/dataflow-studio/fusion_rules",
                         exe.parent_path() / "../resources/fusion_rules"}) {
      fs::path p = dir / (name + ".yaml");
      if (fs::exists(p, ec)) return p.string();
    }
  }
  return std::string(DFC_RESOURCE_DIR) + "/fusion_rules/" + name + ".yaml";
}

struct Ctx {
  const std::string& source;
  std::string rule;  // current rule name ("" before it is known)
  Error at(const YAML::Node& n, const std::string& what) const {
    std::string where = source + ":" + std::to_string(n.Mark().line + 1);
    return makeError(where + ": " + (rule.empty() ? std::string() : "rule '" + rule + "': ") + what);
  }
};

std::string scalarOr(const YAML::Node& n, const std::string& fallback = {}) {
  return n && n.IsScalar() ? n.Scalar() : fallback;
}

Expected<std::vector<ir::OpKind>> parseOpTypes(const YAML::Node& n, const Ctx& ctx, const std::string& node) {
  std::vector<YAML::Node> items;
  if (n.IsScalar()) items.push_back(n);
  else if (n.IsSequence()) for (const auto& i : n) items.push_back(i);
  else return ctx.at(n, "node '" + node + "': op_type must be a name or a list of names");
  if (items.empty()) return ctx.at(n, "node '" + node + "': op_type list is empty");
  std::vector<ir::OpKind> ops;
  for (const auto& i : items) {
    auto op = i.IsScalar() ? ir::opFromName(i.Scalar()) : std::nullopt;
    if (!op) return ctx.at(i, "node '" + node + "': unknown op_type '" + scalarOr(i, "?") + "'");
    ops.push_back(*op);
  }
  return ops;
}

Expected<bool> parseBool(const YAML::Node& n, const Ctx& ctx, const std::string& what) {
  std::string s = scalarOr(n);
  if (s == "true" || s == "yes") return true;
  if (s == "false" || s == "no") return false;
  return ctx.at(n, what + " must be true or false");
}

Status applyHeuristic(const std::string& key, const std::string& value, const YAML::Node& at, const Ctx& ctx,
                      Heuristic& h) {
  if (key == "max_nodes") {
    try {
      h.maxNodes = std::stoi(value);
    } catch (...) {
      h.maxNodes = 0;
    }
    if (h.maxNodes < 1) return ctx.at(at, "heuristic max_nodes needs a positive number");
  } else if (key == "same_scope") {
    h.sameScope = value.empty() || value == "true";
  } else if (key == "no_external_uses") {
    h.noExternalUses = value.empty() || value == "true";
  } else {
    return ctx.at(at, "unknown heuristic '" + key + "' (use max_nodes: N, same_scope, no_external_uses)");
  }
  return {};
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

Status parseHeuristic(const YAML::Node& n, const Ctx& ctx, Heuristic& h) {
  if (n.IsScalar()) {
    const std::string& s = n.Scalar();
    auto colon = s.find(':');
    return applyHeuristic(trim(s.substr(0, colon)), colon == std::string::npos ? "" : trim(s.substr(colon + 1)), n,
                          ctx, h);
  }
  if (n.IsSequence()) {
    for (const auto& i : n) DFC_TRY(parseHeuristic(i, ctx, h));
    return {};
  }
  if (n.IsMap()) {
    for (const auto& kv : n) DFC_TRY(applyHeuristic(kv.first.Scalar(), scalarOr(kv.second), kv.first, ctx, h));
    return {};
  }
  return ctx.at(n, "heuristic must be a string, a list or a map");
}

std::vector<YAML::Node> childList(const YAML::Node& node) {
  std::vector<YAML::Node> out;
  for (const char* key : {"child", "children"}) {
    YAML::Node c = node[key];
    if (!c) continue;
    if (c.IsSequence()) for (const auto& i : c) out.push_back(i);
    else out.push_back(c);
  }
  return out;
}

// name, priority, heuristic; any other key but pattern is refused.
Status parseRuleHeader(const YAML::Node& r, Ctx& ctx, FusionRule& rule) {
  rule.line = r.Mark().line + 1;
  if (!r["name"] || !r["name"].IsScalar() || r["name"].Scalar().empty()) return ctx.at(r, "rule without a name");
  rule.name = ctx.rule = r["name"].Scalar();
  if (YAML::Node p = r["priority"]) {
    try {
      rule.priority = p.as<int>();
    } catch (const YAML::Exception&) {
      return ctx.at(p, "bad priority '" + scalarOr(p, "?") + "' (an integer)");
    }
  }
  if (YAML::Node h = r["heuristic"]) DFC_TRY(parseHeuristic(h, ctx, rule.heuristic));
  for (const auto& kv : r) {
    std::string key = kv.first.Scalar();
    if (key != "name" && key != "priority" && key != "heuristic" && key != "pattern")
      return ctx.at(kv.first, "unknown key '" + key + "'");
  }
  return {};
}

// The pattern's nodes by name, in declaration order; their specs are parsed
// after all are known, since a child may be declared after its parent.
Expected<std::vector<YAML::Node>> declarePatternNodes(const YAML::Node& pattern, const Ctx& ctx, FusionRule& rule,
                                                      std::map<std::string, int>& index) {
  std::vector<YAML::Node> specs;
  for (const auto& kv : pattern) {
    PatternNode pn;
    pn.name = kv.first.Scalar();
    pn.line = kv.first.Mark().line + 1;
    if (index.count(pn.name)) return ctx.at(kv.first, "duplicate pattern node '" + pn.name + "'");
    index[pn.name] = static_cast<int>(rule.nodes.size());
    rule.nodes.push_back(std::move(pn));
    specs.push_back(kv.second);
  }
  return specs;
}

// match_first_option: alternatives tried in order, each an op_type (and its own included).
Status parseMatchFirstOption(const YAML::Node& alts, const Ctx& ctx, bool included, PatternNode& pn) {
  if (!alts.IsSequence() || alts.size() == 0)
    return ctx.at(alts, "node '" + pn.name + "': match_first_option must be a non-empty list");
  for (const auto& alt : alts) {
    PatternOption opt{{}, included};
    YAML::Node ot = alt.IsMap() ? alt["op_type"] : alt;
    if (!ot) return ctx.at(alt, "node '" + pn.name + "': each option needs an op_type");
    auto ops = parseOpTypes(ot, ctx, pn.name);
    if (!ops) return ops.error();
    opt.ops = *ops;
    if (alt.IsMap() && alt["included"]) {
      auto b = parseBool(alt["included"], ctx, "node '" + pn.name + "': included");
      if (!b) return b.error();
      opt.included = *b;
    }
    pn.options.push_back(std::move(opt));
  }
  return {};
}

// required and included; any key but those of a node spec is refused.
Status parseNodeFlags(const YAML::Node& s, const Ctx& ctx, PatternNode& pn, bool& included) {
  for (const auto& kv : s) {
    std::string key = kv.first.Scalar();
    if (key == "required") {
      auto b = parseBool(kv.second, ctx, "node '" + pn.name + "': required");
      if (!b) return b.error();
      pn.required = *b;
    } else if (key == "included") {
      auto b = parseBool(kv.second, ctx, "node '" + pn.name + "': included");
      if (!b) return b.error();
      included = *b;
    } else if (key != "op_type" && key != "child" && key != "children" && key != "match_first_option") {
      return ctx.at(kv.first, "node '" + pn.name + "': unknown key '" + key + "'");
    }
  }
  return {};
}

// Node `i` of the rule from its spec: flags, op types, children (edges both ways).
Status parsePatternNode(const YAML::Node& s, size_t i, const std::map<std::string, int>& index, const Ctx& ctx,
                        FusionRule& rule) {
  PatternNode& pn = rule.nodes[i];
  if (!s.IsMap()) return ctx.at(s, "node '" + pn.name + "' must be a map with op_type");
  bool included = true;
  DFC_TRY(parseNodeFlags(s, ctx, pn, included));
  if (YAML::Node ot = s["op_type"]) {
    auto ops = parseOpTypes(ot, ctx, pn.name);
    if (!ops) return ops.error();
    pn.options.push_back({*ops, included});
  }
  if (YAML::Node alts = s["match_first_option"]) DFC_TRY(parseMatchFirstOption(alts, ctx, included, pn));
  if (pn.options.empty()) return ctx.at(s, "node '" + pn.name + "' has no op_type");
  for (const YAML::Node& c : childList(s)) {
    auto it = c.IsScalar() ? index.find(c.Scalar()) : index.end();
    if (it == index.end())
      return ctx.at(c, "node '" + pn.name + "': unknown child '" + scalarOr(c, "?") + "' (not a node of this pattern)");
    if (it->second == static_cast<int>(i)) return ctx.at(c, "node '" + pn.name + "' is its own child (a cycle)");
    pn.children.push_back(it->second);
    rule.nodes[static_cast<size_t>(it->second)].parents.push_back(static_cast<int>(i));
  }
  return {};
}

// Topological order (stable by declaration); what remains is a cycle.
Status sortPatternNodes(FusionRule& rule, const std::vector<YAML::Node>& specs, const Ctx& ctx) {
  size_t n = rule.nodes.size();
  std::vector<int> indeg(n), order;
  for (size_t i = 0; i < n; ++i) indeg[i] = static_cast<int>(rule.nodes[i].parents.size());
  std::vector<bool> done(n, false);
  while (order.size() < n) {
    size_t pick = n;
    for (size_t i = 0; i < n && pick == n; ++i)
      if (!done[i] && indeg[i] == 0) pick = i;
    if (pick == n) {
      for (size_t i = 0; i < n; ++i)
        if (!done[i]) return ctx.at(specs[i], "pattern has a cycle through node '" + rule.nodes[i].name + "'");
    }
    done[pick] = true;
    order.push_back(static_cast<int>(pick));
    for (int c : rule.nodes[pick].children) --indeg[static_cast<size_t>(c)];
  }
  std::vector<int> newIndex(n);
  for (size_t k = 0; k < n; ++k) newIndex[static_cast<size_t>(order[k])] = static_cast<int>(k);
  std::vector<PatternNode> sorted;
  for (int old : order) {
    PatternNode pn = rule.nodes[static_cast<size_t>(old)];
    for (int& c : pn.children) c = newIndex[static_cast<size_t>(c)];
    for (int& p : pn.parents) p = newIndex[static_cast<size_t>(p)];
    sorted.push_back(std::move(pn));
  }
  rule.nodes = std::move(sorted);
  return {};
}

// A rule must fuse something and have a required node to anchor its search on.
Status checkFusesAndAnchors(const FusionRule& rule, const YAML::Node& pattern, const Ctx& ctx) {
  bool anyFused = false;
  for (const auto& pn : rule.nodes)
    for (const auto& o : pn.options) anyFused |= o.included;
  if (!anyFused) return ctx.at(pattern, "pattern fuses no node (every node is included: false)");
  bool anyRequired = std::any_of(rule.nodes.begin(), rule.nodes.end(), [](const PatternNode& p) { return p.required; });
  if (!anyRequired) return ctx.at(pattern, "pattern needs at least one required node to anchor on");
  return {};
}

Expected<FusionRule> parseRule(const YAML::Node& r, Ctx& ctx) {
  ctx.rule.clear();
  if (!r.IsMap()) return ctx.at(r, "a rule must be a map with name, priority and pattern");
  FusionRule rule;
  DFC_TRY(parseRuleHeader(r, ctx, rule));
  YAML::Node pattern = r["pattern"];
  if (!pattern) return ctx.at(r, "rule without a pattern");
  if (!pattern.IsMap() || pattern.size() == 0) return ctx.at(pattern, "pattern must be a non-empty map of nodes");
  std::map<std::string, int> index;
  auto specs = declarePatternNodes(pattern, ctx, rule, index);
  if (!specs) return specs.error();
  for (size_t i = 0; i < specs->size(); ++i) DFC_TRY(parsePatternNode((*specs)[i], i, index, ctx, rule));
  DFC_TRY(sortPatternNodes(rule, *specs, ctx));
  DFC_TRY(checkFusesAndAnchors(rule, pattern, ctx));
  return rule;
}

}  // namespace

Expected<FusionRuleList> parseFusionRules(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return makeError(source + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  Ctx ctx{source, {}};
  YAML::Node rules = root.IsMap() ? root["rules"] : root;
  if (!rules || !rules.IsSequence())
    return makeError(source + ": expected a list of rules (or a map with a `rules:` list)");
  FusionRuleList list;
  list.source = source;
  try {
    for (const auto& r : rules) {
      auto rule = parseRule(r, ctx);
      if (!rule) return rule.error();
      for (const auto& other : list.rules)
        if (other.name == rule->name)
          return makeError(source + ":" + std::to_string(rule->line) + ": rule '" + rule->name + "' defined twice");
      list.rules.push_back(std::move(*rule));
    }
  } catch (const YAML::Exception& e) {
    return makeError(source + ":" + std::to_string(e.mark.line + 1) + ": " +
                     (ctx.rule.empty() ? "" : "rule '" + ctx.rule + "': ") + e.msg);
  }
  std::stable_sort(list.rules.begin(), list.rules.end(),
                   [](const FusionRule& a, const FusionRule& b) { return a.priority > b.priority; });
  return list;
}

Expected<FusionRuleList> loadFusionRuleList(const std::string& nameOrPath) {
  const auto names = builtinRuleListNames();
  bool builtin = std::find(names.begin(), names.end(), nameOrPath) != names.end();
  std::string path = builtin ? builtinPath(nameOrPath) : nameOrPath;
  std::error_code ec;
  if (!builtin && !fs::exists(path, ec))
    return makeError("--o1-rule-list " + nameOrPath +
                     ": not a built-in list (default, nlp, gpt2, bloom, gpt_neox_inf, gpt_neox_train, llama) nor a file");
  auto text = support::readFile(path);
  if (!text) return text.error();
  return parseFusionRules(*text, path);
}

}  // namespace dfc::partition
