#include "ir/Printer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace dfc::ir {

bool isBareName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
              c == '/';
    if (!ok) return false;
  }
  return true;
}

namespace {

// quoteString's text appended to `out` (node lines use it for every name and scope).
void appendQuoted(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  out += '"';
}

}  // namespace

std::string quoteString(std::string_view s) {
  std::string out;
  appendQuoted(out, s);
  return out;
}

namespace {

// Identifier-like words (graph name, attribute keys) start with a letter or '_'.
bool isBareWord(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9') || s[0] == '.' || s[0] == '/') return false;
  return isBareName(s);
}

std::string word(std::string_view s) { return isBareWord(s) ? std::string(s) : quoteString(s); }

void appendInt(std::string& out, int64_t x) {  // std::to_string's text
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, x);
  out.append(buf, r.ptr);
}

class GraphPrinter {
 public:
  GraphPrinter(const Graph& g, const PrintOptions& opts) : m_g(g), m_opts(opts), m_emitted(g.values.size(), false) {}

  std::string run();

 private:
  std::string ref(ValueId v) const {
    if (v < 0 || static_cast<size_t>(v) >= m_g.values.size()) return "%\"<invalid " + std::to_string(v) + ">\"";
    const std::string& n = m_g.values[static_cast<size_t>(v)].name;
    return "%" + (isBareName(n) ? n : quoteString(n));
  }
  // ref(v) appended to m_out without a temporary.
  void appendRef(ValueId v) {
    if (!valid(v)) {
      m_out += ref(v);
      return;
    }
    const std::string& n = m_g.values[static_cast<size_t>(v)].name;
    m_out += '%';
    if (isBareName(n)) m_out += n;
    else appendQuoted(m_out, n);
  }
  bool valid(ValueId v) const { return v >= 0 && static_cast<size_t>(v) < m_g.values.size(); }
  bool canEmitNode(const Node& n, ValueId next) const;
  void emitNode(const Node& n);
  void emitDecl(ValueId id);
  void emitData(const Tensor& t);
  void emitRecipe(const InitRecipe& r);
  static void appendFloat(std::string& out, double d, bool markFloat);

  const Graph& m_g;
  const PrintOptions& m_opts;
  std::vector<bool> m_emitted;
  std::string m_out;
};

void GraphPrinter::appendFloat(std::string& out, double d, bool markFloat) {
  if (std::isnan(d)) {
    out += std::signbit(d) ? "-nan" : "nan";
    return;
  }
  if (std::isinf(d)) {
    out += d < 0 ? "-inf" : "inf";
    return;
  }
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d);
  std::string_view s(buf, static_cast<size_t>(res.ptr - buf));
  out += s;
  // Attributes keep their variant type: a float is always written with '.' or 'e'.
  if (markFloat && s.find_first_of(".e") == std::string_view::npos) out += ".0";
}

// A node line can be emitted now when its inputs are already declared and the
// outputs it declares get exactly the next ids, so parsing keeps value ids.
bool GraphPrinter::canEmitNode(const Node& n, ValueId next) const {
  for (ValueId in : n.inputs)
    if (!valid(in) || !m_emitted[static_cast<size_t>(in)]) return false;
  ValueId expect = next;
  for (size_t k = 0; k < n.outputs.size(); ++k) {
    ValueId out = n.outputs[k];
    if (!valid(out) || std::find(n.outputs.begin(), n.outputs.begin() + static_cast<std::ptrdiff_t>(k), out) !=
                           n.outputs.begin() + static_cast<std::ptrdiff_t>(k))
      return false;  // listed twice
    if (m_emitted[static_cast<size_t>(out)]) continue;
    if (out != expect) return false;
    ++expect;
  }
  return true;
}

void GraphPrinter::emitRecipe(const InitRecipe& r) {
  switch (r.kind) {
    case InitRecipe::Kind::Zeros: m_out += " = zeros()"; return;
    case InitRecipe::Kind::Fill:
      m_out += " = fill(";
      appendFloat(m_out, r.value, true);
      m_out += ')';
      return;
    case InitRecipe::Kind::Uniform:
      m_out += " = uniform(";
      appendFloat(m_out, r.value, true);
      m_out += ", " + std::to_string(r.seed) + ')';
      return;
  }
}

void GraphPrinter::emitData(const Tensor& t) {
  m_out += " = [";
  auto n = static_cast<size_t>(t.numElements());
  for (size_t i = 0; i < n; ++i) {
    if (i) m_out += ", ";
    switch (t.dtype()) {
      case DType::F32: {
        float f = t.data<float>()[i];
        if (std::isnan(f) || std::isinf(f)) {
          appendFloat(m_out, f, false);
        } else {
          char buf[32];
          auto res = std::to_chars(buf, buf + sizeof buf, f);
          m_out.append(buf, res.ptr);
        }
        break;
      }
      case DType::I64: m_out += std::to_string(t.data<int64_t>()[i]); break;
      case DType::I32: m_out += std::to_string(t.data<int32_t>()[i]); break;
      case DType::Bool: m_out += t.data<uint8_t>()[i] ? "true" : "false"; break;
    }
  }
  m_out += ']';
}

void GraphPrinter::emitDecl(ValueId id) {
  const Value& v = m_g.values[static_cast<size_t>(id)];
  m_out += "  ";
  switch (v.kind) {
    case ValueKind::Input: m_out += "input "; break;
    case ValueKind::Param: m_out += "param "; break;
    case ValueKind::Const: m_out += "const "; break;
    case ValueKind::Intermediate: m_out += "value "; break;
  }
  m_out += ref(id) + " : " + v.type.toString();
  bool wantData = (v.kind == ValueKind::Const && m_opts.withConstData) || (v.kind == ValueKind::Param && m_opts.withWeights);
  auto it = m_g.initializers.find(id);
  if (wantData && it != m_g.initializers.end() && !it->second.empty()) {
    if (const InitRecipe* r = it->second.recipe()) emitRecipe(*r);
    else emitData(it->second);
  }
  m_out += '\n';
  m_emitted[static_cast<size_t>(id)] = true;
}

void GraphPrinter::emitNode(const Node& n) {
  m_out += "  ";
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    ValueId o = n.outputs[i];
    if (i) m_out += ", ";
    appendRef(o);
    if (valid(o)) {
      m_out += " : ";
      m_out += m_g.values[static_cast<size_t>(o)].type.toString();
      m_emitted[static_cast<size_t>(o)] = true;
    }
  }
  if (!n.outputs.empty()) m_out += " = ";
  m_out += opName(n.op);
  m_out += '(';
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    if (i) m_out += ", ";
    appendRef(n.inputs[i]);
  }
  m_out += ')';
  if (!n.attrs.empty()) {
    m_out += " {";
    bool first = true;
    for (const auto& [key, attr] : n.attrs) {
      if (!first) m_out += ", ";
      first = false;
      if (isBareWord(key)) m_out += key;
      else appendQuoted(m_out, key);
      m_out += " = ";
      if (auto* i = std::get_if<int64_t>(&attr)) {
        appendInt(m_out, *i);
      } else if (auto* d = std::get_if<double>(&attr)) {
        appendFloat(m_out, *d, true);
      } else if (auto* list = std::get_if<std::vector<int64_t>>(&attr)) {
        m_out += '[';
        for (size_t k = 0; k < list->size(); ++k) {
          if (k) m_out += ", ";
          appendInt(m_out, (*list)[k]);
        }
        m_out += ']';
      } else {
        appendQuoted(m_out, std::get<std::string>(attr));
      }
    }
    m_out += '}';
  }
  if (!n.scope.empty()) {
    m_out += " @";
    appendQuoted(m_out, n.scope);
  }
  if (n.role != NodeRole{}) {  // the first role in Roles.def is the default, left out
    m_out += " role=";
    m_out += roleName(n.role);
  }
  m_out += " name=";
  appendQuoted(m_out, n.name);
  m_out += '\n';
}

std::string GraphPrinter::run() {
  m_out = "graph " + word(m_g.name) + " {\n";
  size_t nextNode = 0;
  for (size_t i = 0; i < m_g.values.size(); ++i) {
    auto id = static_cast<ValueId>(i);
    if (m_emitted[i]) continue;
    while (nextNode < m_g.nodes.size() && canEmitNode(m_g.nodes[nextNode], id)) emitNode(m_g.nodes[nextNode++]);
    if (m_emitted[i]) continue;
    // An intermediate that cannot be defined by its node line here is declared
    // ahead ("value"), and the node line later binds to it.
    emitDecl(id);
  }
  while (nextNode < m_g.nodes.size()) emitNode(m_g.nodes[nextNode++]);

  // Graph inputs are the Input declarations in id order unless said otherwise.
  std::vector<ValueId> implied;
  for (size_t i = 0; i < m_g.values.size(); ++i)
    if (m_g.values[i].kind == ValueKind::Input) implied.push_back(static_cast<ValueId>(i));
  if (implied != m_g.inputs) {
    m_out += "  inputs";
    for (size_t i = 0; i < m_g.inputs.size(); ++i) m_out += (i ? ", " : " ") + ref(m_g.inputs[i]);
    m_out += '\n';
  }
  if (!m_g.outputs.empty()) {
    m_out += "  output";
    for (size_t i = 0; i < m_g.outputs.size(); ++i) m_out += (i ? ", " : " ") + ref(m_g.outputs[i]);
    m_out += '\n';
  }
  for (const StateUpdate& u : m_g.updates) m_out += "  update " + ref(u.target) + " <- " + ref(u.newValue) + '\n';
  m_out += "}\n";
  return std::move(m_out);
}

}  // namespace

std::string printGraph(const Graph& g, const PrintOptions& opts) { return GraphPrinter(g, opts).run(); }

}  // namespace dfc::ir
