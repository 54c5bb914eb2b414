#include "mapping/Decisions.h"

#include <yaml-cpp/yaml.h>

#include "support/FileUtil.h"

namespace dfc::mapping {
namespace {

constexpr int kMaxChip = 7;                 // --n-chips is at most 8
// Limits over the whole file, not per entry: YAML aliases let a few bytes
// name one long pattern (or list) any number of times.
constexpr size_t kMaxPatterns = 100000;
constexpr size_t kMaxPatternBytes = 16u << 20;
constexpr const char* kKeys = "together, cut_before, nodes, chip, role";

// Length of the UTF-8 sequence at text[i], or 0 when it is not valid UTF-8
// (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF).
size_t utf8Length(std::string_view text, size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  if (c < 0x80) return 1;
  const size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  if (n == 0 || i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(text[i + k]) >> 6) != 0x2) return 0;
  const auto second = static_cast<unsigned char>(text[i + 1]);
  if ((c == 0xe0 && second < 0xa0) || (c == 0xed && second > 0x9f) || (c == 0xf0 && second < 0x90) ||
      (c == 0xf4 && second > 0x8f))
    return 0;
  return n;
}

bool validUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t n = utf8Length(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

// Every code point (of valid UTF-8) is in YAML's printable set, less the
// byte-order mark: x20-x7E, xA0-xD7FF, xE000-xFFFD, x10000-x10FFFF.
bool yamlPrintable(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t n = utf8Length(text, i);
    auto c = static_cast<unsigned char>(text[i]);
    uint32_t cp = n == 1 ? c : n == 2 ? (c & 0x1fu) : n == 3 ? (c & 0x0fu) : (c & 0x07u);
    for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3fu);
    const bool ok = (cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xd7ff) ||
                    (cp >= 0xe000 && cp <= 0xfffd && cp != 0xfeff) || cp >= 0x10000;
    if (n == 0 || !ok) return false;
    i += n;
  }
  return true;
}

// One comment line: control characters and invalid UTF-8 become spaces.
std::string commentText(std::string_view line) {
  std::string out;
  for (size_t i = 0; i < line.size();) {
    const size_t n = utf8Length(line, i);
    const bool control = n == 1 && (static_cast<unsigned char>(line[i]) < 0x20 || line[i] == 0x7f);
    out += n == 0 || control ? std::string(" ") : std::string(line.substr(i, n));
    i += n == 0 ? 1 : n;
  }
  return out;
}

struct Reader {
  const std::string& path;
  mutable size_t patterns = 0, patternBytes = 0;  // read so far, in the whole file

  Error at(const YAML::Node& n, const std::string& what) const {
    return makeError(path + ":" + std::to_string(n.Mark().line + 1) + ": " + what);
  }

  // A pattern, or a non-empty list of them.
  Status readPatterns(const std::string& key, const YAML::Node& value, Decision& d) const {
    auto add = [&](const YAML::Node& n) -> Status {
      if (!n.IsScalar() || n.Scalar().empty())
        return at(n, "key '" + key + "': expected an operator name or pattern");
      if (!validUtf8(n.Scalar())) return at(n, "key '" + key + "': the pattern is not valid UTF-8");
      // Operator names hold only printable characters; YAML would not write others back the same.
      if (!yamlPrintable(n.Scalar()))
        return at(n, "key '" + key + "': the pattern holds a control character, noncharacter or byte-order mark");
      patternBytes += n.Scalar().size();
      if (++patterns > kMaxPatterns || patternBytes > kMaxPatternBytes)
        return at(n, "more than " + std::to_string(kMaxPatterns) + " patterns or " +
                         std::to_string(kMaxPatternBytes >> 20) + " MiB of them in the file (aliases count each use)");
      d.patterns.push_back(n.Scalar());
      return {};
    };
    if (value.IsScalar()) return add(value);
    if (!value.IsSequence() || value.size() == 0)
      return at(value, "key '" + key + "': expected an operator name or pattern, or a list of them");
    for (const auto& item : value) DFC_TRY(add(item));
    return {};
  }

  Status readChip(const YAML::Node& value, Decision& d) const {
    int chip = -1;
    if (!value.IsScalar() || !YAML::convert<int>::decode(value, chip) || chip < 0 || chip > kMaxChip)
      return at(value, "key 'chip': expected a chip number in [0, " + std::to_string(kMaxChip) + "], got '" +
                           (value.IsScalar() ? value.Scalar() : std::string("(not a number)")) + "'");
    d.chip = chip;
    return {};
  }

  Status readRole(const YAML::Node& value, Decision& d) const {
    auto role = value.IsScalar() ? ir::parseRole(value.Scalar()) : std::nullopt;
    if (!role) return at(value, "key 'role': expected " + ir::roleNameList());
    d.role = role;
    return {};
  }

  Status setKind(const YAML::Node& keyNode, DecisionKind kind, bool& haveKind, Decision& d) const {
    if (haveKind)
      return at(keyNode, "key '" + keyNode.Scalar() + "': one decision per entry (together, cut_before or nodes)");
    haveKind = true;
    d.kind = kind;
    return {};
  }

  Expected<Decision> readEntry(const YAML::Node& entry) const {
    if (!entry.IsMap()) return at(entry, "expected a decision (a map with one of together, cut_before, nodes)");
    Decision d;
    d.line = entry.Mark().line + 1;
    bool haveKind = false;
    for (const auto& item : entry) {
      const std::string key = item.first.IsScalar() ? item.first.Scalar() : std::string();
      if (key == "together" || key == "cut_before" || key == "nodes") {
        DecisionKind kind = key == "together"     ? DecisionKind::Together
                            : key == "cut_before" ? DecisionKind::CutBefore
                                                  : DecisionKind::Chip;
        DFC_TRY(setKind(item.first, kind, haveKind, d));
        DFC_TRY(readPatterns(key, item.second, d));
      } else if (key == "chip") {
        DFC_TRY(readChip(item.second, d));
      } else if (key == "role") {
        DFC_TRY(readRole(item.second, d));
      } else {
        return at(item.first, "unknown key '" + key + "' (known: " + std::string(kKeys) + ")");
      }
    }
    if (!haveKind) return at(entry, "a decision needs one of together, cut_before, nodes");
    if (d.kind == DecisionKind::Chip && d.chip < 0) return at(entry, "key 'nodes': needs 'chip: N' beside it");
    if (d.kind == DecisionKind::CutBefore && d.chip >= 0)
      return at(entry, "key 'chip': a cut_before decision takes no chip (use nodes: ... chip: N)");
    return d;
  }
};

}  // namespace

std::string_view decisionKindName(DecisionKind kind) {
  switch (kind) {
    case DecisionKind::Together: return "together";
    case DecisionKind::CutBefore: return "cut_before";
    case DecisionKind::Chip: return "chip";
  }
  return "?";
}

std::string patternText(const Decision& d) {
  if (d.patterns.size() == 1) return d.patterns.front();
  std::string out = "[";
  for (const std::string& p : d.patterns) out += (out.size() > 1 ? ", " : "") + p;
  return out + "]";
}

Expected<DecisionFile> loadDecisions(const std::string& path) {
  auto text = support::readFile(path);
  if (!text) return text.error().withContext("--mac-human-decision");
  return parseDecisions(*text, path);
}

Expected<DecisionFile> parseDecisions(const std::string& text, const std::string& path) {
  DecisionFile file{path, {}};
  Reader reader{path};
  try {
    YAML::Node root = YAML::Load(text);
    if (root.IsNull()) return file;  // an empty file decides nothing
    if (!root.IsSequence())
      return reader.at(root, "expected a list of decisions (- together: ..., - cut_before: ..., - nodes: ... chip: N)");
    for (const auto& entry : root) {
      auto d = reader.readEntry(entry);
      if (!d) return d.error();
      file.decisions.push_back(std::move(*d));
    }
  } catch (const YAML::Exception& e) {
    return makeError(path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return file;
}

Expected<std::string> formatDecisions(const DecisionFile& file, const std::string& header) {
  YAML::Emitter out;
  std::string comments;
  for (size_t from = 0; from < header.size();) {
    size_t end = header.find('\n', from);
    if (end == std::string::npos) end = header.size();
    comments += "# " + commentText(std::string_view(header).substr(from, end - from)) + "\n";
    from = end + 1;
  }
  for (const Decision& d : file.decisions)
    for (const std::string& p : d.patterns)
      if (p.empty() || !validUtf8(p)) return makeError(file.path + ": cannot write the pattern '" + p + "' (empty or not UTF-8)");
  out << YAML::BeginSeq;
  for (const Decision& d : file.decisions) {
    out << YAML::BeginMap;
    out << YAML::Key << (d.kind == DecisionKind::Chip ? "nodes" : std::string(decisionKindName(d.kind)));
    out << YAML::Value;
    if (d.patterns.size() == 1) {
      out << YAML::DoubleQuoted << d.patterns.front();
    } else {
      out << YAML::Flow << YAML::BeginSeq;
      for (const std::string& p : d.patterns) out << YAML::DoubleQuoted << p;
      out << YAML::EndSeq;
    }
    if (d.role) out << YAML::Key << "role" << YAML::Value << std::string(ir::roleName(*d.role));
    if (d.chip >= 0) out << YAML::Key << "chip" << YAML::Value << d.chip;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  if (!out.good()) return makeError(file.path + ": cannot write the decisions: " + out.GetLastError());
  return comments + (file.decisions.empty() ? std::string("[]") : std::string(out.c_str())) + "\n";
}

bool globMatch(std::string_view pattern, std::string_view name) {
  // Iterative matcher with one backtrack point (the last '*'): linear in practice, no recursion.
  size_t p = 0, n = 0, star = std::string_view::npos, resume = 0;
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::vector<ir::NodeId> matchDecision(const ir::Graph& graph, const Decision& d) {
  std::vector<ir::NodeId> out;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const ir::Node& n = graph.nodes[i];
    if (d.role && n.role != *d.role) continue;
    for (const std::string& p : d.patterns)
      if (p == n.name || globMatch(p, n.name)) {
        out.push_back(static_cast<ir::NodeId>(i));
        break;
      }
  }
  return out;
}

}  // namespace dfc::mapping
