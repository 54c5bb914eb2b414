#include "ir/Parser.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>

#include "ir/DfirLexer.h"

namespace dfc::ir {
namespace {

// Bounds a declared tensor so that sizes never overflow (2^40 bytes is far
// beyond any model this tool compiles).
constexpr int64_t kMaxBytes = int64_t{1} << 40;

class Parser {
 public:
  Parser(std::vector<Token> toks, const std::string& source, SourceLines* lines)
      : m_toks(std::move(toks)), m_source(source), m_lines(lines) {}
  Expected<Graph> run();

 private:
  const Token& cur() const { return m_toks[m_pos]; }
  const Token& next() { return m_toks[m_pos < m_toks.size() - 1 ? m_pos++ : m_pos]; }
  bool isPunct(const char* p) const { return cur().kind == TokKind::Punct && cur().text == p; }
  bool isWord(const char* w) const { return cur().kind == TokKind::Word && cur().text == w; }
  Error failAt(const Token& t, const std::string& msg) const {
    return makeError(m_source + ":" + std::to_string(t.line) + ":" + std::to_string(t.col) + ": " + msg);
  }
  Error fail(const std::string& msg) const { return failAt(cur(), msg); }
  std::string describe(const Token& t) const {
    if (t.kind == TokKind::End) return "end of input";
    if (t.kind == TokKind::Value) return "'%" + t.text + "'";
    return "'" + t.text + "'";
  }
  Status expectPunct(const char* p) {
    if (!isPunct(p)) return fail(std::string("expected '") + p + "', found " + describe(cur()));
    next();
    return {};
  }
  Expected<std::string> expectString() {
    if (cur().kind != TokKind::String) return fail("expected a quoted string, found " + describe(cur()));
    return next().text;
  }

  Expected<TensorType> parseType();
  Expected<int64_t> parseInt();
  Expected<std::vector<int64_t>> parseIntList();
  Expected<Attribute> parseAttrValue();
  Expected<Tensor> parseData(const TensorType& type);
  Expected<Tensor> parseRecipe(const TensorType& type);
  Expected<ValueId> parseRef();
  Expected<std::vector<ValueId>> parseRefList();
  Status parseDecl(ValueKind kind);
  Status parseNode();
  // parseNode's steps.
  struct NodeTrailer {
    std::string scope, name;
    NodeRole role = NodeRole::Forward;
  };
  Status parseResults(std::vector<std::pair<const Token*, TensorType>>& results);
  Status parseAttributes(Attributes& attrs);
  Status parseNodeTrailer(const Token& opTok, NodeTrailer& trailer);
  Expected<std::vector<ValueId>> bindResults(const std::vector<std::pair<const Token*, TensorType>>& results);
  Status parseStatement();
  Expected<ValueId> define(const Token& at, const std::string& name, const TensorType& type, ValueKind kind);

  std::vector<Token> m_toks;
  const std::string& m_source;
  SourceLines* m_lines;  // may be null
  size_t m_pos = 0;
  Graph m_g;
  std::unordered_map<std::string, ValueId> m_byName;
  std::unordered_map<std::string, NodeId> m_nodeByName;
  std::vector<bool> m_forward;  // per value: declared ahead with 'value', awaiting its node
  std::optional<std::vector<ValueId>> m_explicitInputs;
};

Expected<int64_t> Parser::parseInt() {
  const Token& t = cur();
  if (t.kind != TokKind::Number) return fail("expected an integer, found " + describe(t));
  int64_t v = 0;
  const char* b = t.text.data();
  const char* e = b + t.text.size();
  if (*b == '+') ++b;
  auto res = std::from_chars(b, e, v);
  if (res.ec != std::errc() || res.ptr != e) return fail("bad integer '" + t.text + "'");
  next();
  return v;
}

Expected<std::vector<int64_t>> Parser::parseIntList() {
  DFC_TRY(expectPunct("["));
  std::vector<int64_t> out;
  while (!isPunct("]")) {
    if (!out.empty()) DFC_TRY(expectPunct(","));
    auto v = parseInt();
    DFC_TRY(v);
    out.push_back(*v);
  }
  next();
  return out;
}

Expected<TensorType> Parser::parseType() {
  const Token& t = cur();
  TensorType type;
  if (t.kind != TokKind::Word || !parseDType(t.text, type.dtype))
    return fail("bad type: expected f32, i64, i32 or bool, found " + describe(t));
  next();
  if (!isPunct("[")) return fail("bad type: expected '[' after " + t.text);
  auto dims = parseIntList();
  DFC_TRY(dims);
  int64_t bytes = static_cast<int64_t>(dtypeSize(type.dtype));
  for (int64_t d : *dims) {
    if (d < 0) return failAt(t, "bad type: negative dimension " + std::to_string(d));
    if (d > 0 && bytes > kMaxBytes / d) return failAt(t, "bad type: tensor too large");
    bytes *= d;
  }
  type.shape = std::move(*dims);
  return type;
}

Expected<Attribute> Parser::parseAttrValue() {
  const Token& t = cur();
  if (t.kind == TokKind::String) return Attribute(next().text);
  if (isPunct("[")) {
    auto list = parseIntList();
    DFC_TRY(list);
    return Attribute(std::move(*list));
  }
  bool isWordNum = t.kind == TokKind::Word && (t.text == "inf" || t.text == "nan");
  if (t.kind != TokKind::Number && !isWordNum) return fail("bad attribute value " + describe(t));
  bool isFloat = t.text.find_first_of(".eEin") != std::string::npos;
  if (!isFloat) {
    auto v = parseInt();
    DFC_TRY(v);
    return Attribute(*v);
  }
  double d = 0;
  const char* b = t.text.data();
  const char* e = b + t.text.size();
  if (*b == '+') ++b;
  auto res = std::from_chars(b, e, d);
  if (res.ec != std::errc() || res.ptr != e) return fail("bad number '" + t.text + "'");
  next();
  return Attribute(d);
}

// zeros() | fill(X) | uniform(BOUND, SEED): data made when the tensor is loaded.
Expected<Tensor> Parser::parseRecipe(const TensorType& type) {
  const Token& word = next();
  InitRecipe r;
  size_t numbers = 0;
  if (word.text == "zeros") r.kind = InitRecipe::Kind::Zeros;
  else if (word.text == "fill") r.kind = InitRecipe::Kind::Fill, numbers = 1;
  else if (word.text == "uniform") r.kind = InitRecipe::Kind::Uniform, numbers = 2;
  else return failAt(word, "expected data [...] or an init recipe zeros(), fill(X), uniform(BOUND, SEED), found '" + word.text + "'");
  if (r.kind != InitRecipe::Kind::Zeros && type.dtype != DType::F32)
    return failAt(word, word.text + "() needs an f32 value, not " + type.toString());
  DFC_TRY(expectPunct("("));
  for (size_t i = 0; i < numbers; ++i) {
    if (i) DFC_TRY(expectPunct(","));
    const Token& at = cur();
    auto v = parseAttrValue();
    DFC_TRY(v);
    if (i == 1) {
      if (!std::holds_alternative<int64_t>(*v) || std::get<int64_t>(*v) < 0)
        return failAt(at, "uniform(): the seed must be a non-negative integer");
      r.seed = static_cast<uint64_t>(std::get<int64_t>(*v));
      continue;
    }
    if (auto* d = std::get_if<double>(&*v)) r.value = *d;
    else if (auto* n = std::get_if<int64_t>(&*v)) r.value = static_cast<double>(*n);
    else return failAt(at, word.text + "(): expected a number");
    if (!std::isfinite(r.value) || (r.kind == InitRecipe::Kind::Uniform && r.value < 0))
      return failAt(at, word.text + "(): bad value " + at.text);
  }
  DFC_TRY(expectPunct(")"));
  return Tensor::deferred(type, r);
}

Expected<Tensor> Parser::parseData(const TensorType& type) {
  const Token& open = cur();
  DFC_TRY(expectPunct("["));
  std::vector<const Token*> items;
  while (!isPunct("]")) {
    if (!items.empty()) DFC_TRY(expectPunct(","));
    if (cur().kind != TokKind::Number && cur().kind != TokKind::Word) return fail("expected a number, found " + describe(cur()));
    items.push_back(&next());
  }
  next();
  if (static_cast<int64_t>(items.size()) != type.numElements())
    return failAt(open, "data has " + std::to_string(items.size()) + " elements, type " + type.toString() + " needs " +
                            std::to_string(type.numElements()));
  Tensor t(type);
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string& s = items[i]->text;
    const char* b = s.data();
    const char* e = b + s.size();
    if (b != e && *b == '+') ++b;
    std::from_chars_result res{};
    switch (type.dtype) {
      case DType::F32: res = std::from_chars(b, e, t.data<float>()[i]); break;
      case DType::I64: res = std::from_chars(b, e, t.data<int64_t>()[i]); break;
      case DType::I32: res = std::from_chars(b, e, t.data<int32_t>()[i]); break;
      case DType::Bool:
        if (s == "true" || s == "1") t.data<uint8_t>()[i] = 1;
        else if (s == "false" || s == "0") t.data<uint8_t>()[i] = 0;
        else return failAt(*items[i], "bad bool '" + s + "'");
        res.ptr = e;
        break;
    }
    if (res.ec != std::errc() || res.ptr != e)
      return failAt(*items[i], "bad " + std::string(dtypeName(type.dtype)) + " element '" + s + "'");
  }
  return t;
}

Expected<ValueId> Parser::parseRef() {
  if (cur().kind != TokKind::Value) return fail("expected a value like %x, found " + describe(cur()));
  auto it = m_byName.find(cur().text);
  if (it == m_byName.end()) return fail("unknown value '%" + cur().text + "'");
  next();
  return it->second;
}

Expected<std::vector<ValueId>> Parser::parseRefList() {
  std::vector<ValueId> out;
  if (cur().kind != TokKind::Value) return out;
  while (true) {
    auto v = parseRef();
    DFC_TRY(v);
    out.push_back(*v);
    if (!isPunct(",")) return out;
    next();
  }
}

Expected<ValueId> Parser::define(const Token& at, const std::string& name, const TensorType& type, ValueKind kind) {
  if (m_byName.count(name)) return failAt(at, "duplicate name: value '%" + name + "' is already defined");
  ValueId id = m_g.addValue(name, type, kind);
  if (m_lines) m_lines->value.push_back(at.line);
  m_byName[name] = id;
  m_forward.push_back(false);
  return id;
}

Status Parser::parseDecl(ValueKind kind) {
  next();  // keyword
  const Token& nameTok = cur();
  if (nameTok.kind != TokKind::Value) return fail("expected a value like %x, found " + describe(nameTok));
  next();
  DFC_TRY(expectPunct(":"));
  auto type = parseType();
  DFC_TRY(type);
  auto id = define(nameTok, nameTok.text, *type, kind);
  DFC_TRY(id);
  if (kind == ValueKind::Intermediate) m_forward[static_cast<size_t>(*id)] = true;
  if (kind == ValueKind::Input && !m_explicitInputs) m_g.inputs.push_back(*id);
  if (isPunct("=")) {
    if (kind != ValueKind::Param && kind != ValueKind::Const) return fail("only param and const values take data");
    next();
    auto data = cur().kind == TokKind::Word ? parseRecipe(*type) : parseData(*type);
    DFC_TRY(data);
    m_g.initializers[*id] = std::move(*data);
  }
  return {};
}

// Results: %a : T, %b : T = (none for a node without results)
Status Parser::parseResults(std::vector<std::pair<const Token*, TensorType>>& results) {
  while (cur().kind == TokKind::Value) {
    const Token* nameTok = &next();
    DFC_TRY(expectPunct(":"));
    auto type = parseType();
    DFC_TRY(type);
    results.emplace_back(nameTok, std::move(*type));
    if (!isPunct(",")) break;
    next();
  }
  if (!results.empty()) DFC_TRY(expectPunct("="));
  return {};
}

// { key = value, ... } after the inputs; absent means none.
Status Parser::parseAttributes(Attributes& attrs) {
  if (!isPunct("{")) return {};
  next();
  while (!isPunct("}")) {
    if (!attrs.empty()) DFC_TRY(expectPunct(","));
    const Token& key = cur();
    if (key.kind != TokKind::Word && key.kind != TokKind::String)
      return fail("bad attribute: expected a name, found " + describe(key));
    next();
    DFC_TRY(expectPunct("="));
    auto v = parseAttrValue();
    DFC_TRY(v);
    if (!attrs.emplace(key.text, std::move(*v)).second) return failAt(key, "duplicate attribute '" + key.text + "'");
  }
  next();
  return {};
}

// @"scope", role=..., name="..." in any order; the name is required.
Status Parser::parseNodeTrailer(const Token& opTok, NodeTrailer& trailer) {
  bool hasName = false;
  while (true) {
    if (isPunct("@")) {
      next();
      auto s = expectString();
      DFC_TRY(s);
      trailer.scope = std::move(*s);
    } else if (isWord("role") && m_toks[m_pos + 1].text == "=") {
      next();
      next();
      const Token& r = cur();
      auto parsed = parseRole(r.text);
      if (!parsed) return fail("bad role " + describe(r) + ": expected " + roleNameList());
      trailer.role = *parsed;
      next();
    } else if (isWord("name") && m_toks[m_pos + 1].text == "=") {
      next();
      next();
      const Token& nameTok = cur();
      auto s = expectString();
      DFC_TRY(s);
      if (m_nodeByName.count(*s)) return failAt(nameTok, "duplicate name: node '" + *s + "' is already defined");
      trailer.name = std::move(*s);
      hasName = true;
    } else {
      break;
    }
  }
  if (!hasName) return failAt(opTok, "node " + std::string(opTok.text) + " needs name=\"...\"");
  return {};
}

// The results as values: new intermediates, or values declared ahead (their types must agree).
Expected<std::vector<ValueId>> Parser::bindResults(const std::vector<std::pair<const Token*, TensorType>>& results) {
  std::vector<ValueId> outputs;
  for (auto& [tok, type] : results) {
    auto it = m_byName.find(tok->text);
    if (it != m_byName.end() && m_forward[static_cast<size_t>(it->second)]) {
      if (!(m_g.value(it->second).type == type))
        return failAt(*tok, "bad type: '%" + tok->text + "' was declared " + m_g.value(it->second).type.toString());
      m_forward[static_cast<size_t>(it->second)] = false;
      outputs.push_back(it->second);
      continue;
    }
    auto id = define(*tok, tok->text, type, ValueKind::Intermediate);
    DFC_TRY(id);
    outputs.push_back(*id);
  }
  return outputs;
}

// %a : T, %b : T = op(%x, %y) {attrs} @"scope" role=r name="n"
Status Parser::parseNode() {
  std::vector<std::pair<const Token*, TensorType>> results;
  DFC_TRY(parseResults(results));
  const Token& opTok = cur();
  if (opTok.kind != TokKind::Word) return fail("expected an op name, found " + describe(opTok));
  auto op = opFromName(opTok.text);
  if (!op) return fail("unknown op '" + opTok.text + "'");
  next();
  DFC_TRY(expectPunct("("));
  auto inputs = parseRefList();
  DFC_TRY(inputs);
  DFC_TRY(expectPunct(")"));
  Attributes attrs;
  DFC_TRY(parseAttributes(attrs));
  NodeTrailer trailer;
  DFC_TRY(parseNodeTrailer(opTok, trailer));
  auto outputs = bindResults(results);
  DFC_TRY(outputs);
  m_nodeByName[trailer.name] = static_cast<NodeId>(m_g.nodes.size());
  if (m_lines) m_lines->node.push_back(opTok.line);
  m_g.addNode(*op, std::move(trailer.name), std::move(*inputs), std::move(*outputs), std::move(attrs),
              std::move(trailer.scope), trailer.role);
  return {};
}

Status Parser::parseStatement() {
  if (isWord("input")) return parseDecl(ValueKind::Input);
  if (isWord("param")) return parseDecl(ValueKind::Param);
  if (isWord("const")) return parseDecl(ValueKind::Const);
  if (isWord("value")) return parseDecl(ValueKind::Intermediate);
  if (isWord("inputs") || isWord("output")) {
    bool isInputs = cur().text == "inputs";
    next();
    auto list = parseRefList();
    DFC_TRY(list);
    if (isInputs) m_explicitInputs = std::move(*list);
    else m_g.outputs.insert(m_g.outputs.end(), list->begin(), list->end());
    return {};
  }
  if (isWord("update")) {
    next();
    auto target = parseRef();
    DFC_TRY(target);
    if (cur().kind != TokKind::Arrow) return fail("expected '<-', found " + describe(cur()));
    next();
    auto nv = parseRef();
    DFC_TRY(nv);
    m_g.updates.push_back({*target, *nv});
    return {};
  }
  if (cur().kind == TokKind::Value || cur().kind == TokKind::Word) return parseNode();
  return fail("expected a declaration or a node, found " + describe(cur()));
}

Expected<Graph> Parser::run() {
  if (!isWord("graph")) return fail("expected 'graph', found " + describe(cur()));
  next();
  if (cur().kind == TokKind::Word || cur().kind == TokKind::String) {
    m_g.name = next().text;
  } else {
    return fail("expected a graph name, found " + describe(cur()));
  }
  DFC_TRY(expectPunct("{"));
  while (!isPunct("}")) {
    if (cur().kind == TokKind::End) return fail("missing '}' at end of graph");
    DFC_TRY(parseStatement());
  }
  next();
  if (cur().kind != TokKind::End) return fail("unexpected " + describe(cur()) + " after the graph");
  if (m_explicitInputs) {
    // 'inputs' may come after the declarations: it replaces the implied order.
    m_g.inputs = std::move(*m_explicitInputs);
  }
  return std::move(m_g);
}

}  // namespace

Expected<Graph> parseGraph(std::string_view text, const std::string& sourceName, SourceLines* lines) {
  auto toks = lexDfir(text, sourceName);
  DFC_TRY(toks);
  return Parser(std::move(*toks), sourceName, lines).run();
}

}  // namespace dfc::ir
