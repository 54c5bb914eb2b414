// Layout ONNX ops built from the IR's reshape/transpose/strided_slice/concat/
// where: Pad (constant, edge, reflect), DepthToSpace, SpaceToDepth, Trilu,
// Einsum (two-operand contractions: the attention forms), integer Neg/Abs.
#include <algorithm>
#include <map>
#include <numeric>

#include "onnx/ImportContext.h"

namespace dfc::onnx {

Expected<ir::ValueId> sliceAxis(ImportContext& c, ir::ValueId x, size_t axis, int64_t start, int64_t end,
                                int64_t step) {
  const ir::Shape& s = c.shape(x);
  std::vector<int64_t> starts(s.size(), 0), ends(s.begin(), s.end()), steps(s.size(), 1);
  starts[axis] = start;
  ends[axis] = end;
  steps[axis] = step;
  return c.emit(ir::OpKind::StridedSlice, {x}, {{"starts", starts}, {"ends", ends}, {"steps", steps}});
}

Expected<ir::ValueId> onnxMatMul(ImportContext& c, ir::ValueId a, ir::ValueId b);  // MapNn.cpp

namespace {

using ir::DType;
using ir::OpKind;
using ir::Shape;
using ir::ValueId;

ir::Tensor filled(DType dt, Shape shape, double v) {
  ir::Tensor t(ir::TensorType{dt, std::move(shape)});
  for (int64_t i = 0; i < t.numElements(); ++i) {
    switch (dt) {
      case DType::F32: t.data<float>()[i] = static_cast<float>(v); break;
      case DType::I64: t.data<int64_t>()[i] = static_cast<int64_t>(v); break;
      case DType::I32: t.data<int32_t>()[i] = static_cast<int32_t>(v); break;
      case DType::Bool: t.data<bool>()[i] = v != 0; break;
    }
  }
  return t;
}

Status mapPad(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  const std::string mode = c.attrString("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect") return c.error("mode " + mode + " is not supported");
  std::vector<int64_t> pads;
  double value = 0;
  DFC_TRY_ASSIGN(pv, c.requireInput(1));
  DFC_TRY_ASSIGN(p, c.constInts(pv, "pads"));
  pads = p;
  ValueId runtimeValue = ir::kNoValue;  // a constant_value computed (or fed) at run time
  if (ValueId v = c.input(2); v != ir::kNoValue) {
    if (c.type(v).numElements() != 1) return c.error("constant_value must be a scalar");
    if (c.constData(v) == nullptr) {
      if (c.type(v).dtype != c.type(x).dtype) return c.error("constant_value must have the input's element type");
      DFC_TRY_ASSIGN(scalar, c.reshape(v, {}));
      runtimeValue = scalar;
    } else {
      DFC_TRY_ASSIGN(f, c.constFloats(v, "constant_value"));
      value = f[0];
    }
  }
  const size_t rank = c.shape(x).size();
  if (c.numInputs() > 3 && c.input(3) != ir::kNoValue) return c.error("the axes input is not supported");
  if (pads.size() != 2 * rank) return c.error("pads needs 2 entries per axis");
  ValueId cur = x;
  for (size_t d = 0; d < rank; ++d) {
    int64_t before = pads[d], after = pads[d + rank];
    const int64_t len = c.shape(cur)[d];
    if (before < 0 || after < 0) {  // negative pads crop
      DFC_TRY_ASSIGN(cropped, sliceAxis(c, cur, d, std::max<int64_t>(0, -before), len - std::max<int64_t>(0, -after), 1));
      cur = cropped;
      before = std::max<int64_t>(before, 0);
      after = std::max<int64_t>(after, 0);
    }
    if (before == 0 && after == 0) continue;
    std::vector<ValueId> parts;
    auto block = [&](int64_t n, bool front) -> Expected<ValueId> {
      Shape s = c.shape(cur);
      const int64_t l = s[d];
      if (mode == "constant") {
        s[d] = n;
        DFC_TRY(c.checkSize(ir::TensorType{c.type(cur).dtype, s}, "padding"));
        ValueId fill = c.constant(filled(c.type(cur).dtype, s, value), "pad");
        if (runtimeValue == ir::kNoValue) return fill;
        return c.binary("add", fill, runtimeValue);  // zeros + the value: the block filled with it
      }
      if (mode == "edge") {
        DFC_TRY_ASSIGN(edge, sliceAxis(c, cur, d, front ? 0 : l - 1, front ? 1 : l, 1));
        s[d] = n;
        return c.emit(OpKind::Expand, {edge}, {{"shape", s}});
      }
      if (n >= l) return c.error("reflect padding needs pads smaller than the axis");
      return front ? sliceAxis(c, cur, d, n, 0, -1) : sliceAxis(c, cur, d, l - 2, l - 2 - n, -1);
    };
    if (before > 0) {
      DFC_TRY_ASSIGN(b, block(before, true));
      parts.push_back(b);
    }
    parts.push_back(cur);
    if (after > 0) {
      DFC_TRY_ASSIGN(a, block(after, false));
      parts.push_back(a);
    }
    DFC_TRY_ASSIGN(cat, c.emit(OpKind::Concat, parts, {{"axis", static_cast<int64_t>(d)}}));
    cur = cat;
  }
  if (cur == x) {
    DFC_TRY_ASSIGN(copy, c.unary("identity", x));
    cur = copy;
  }
  c.setOutput(0, cur);
  return {};
}

Status mapDepthToSpace(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  const Shape s = c.shape(x);
  if (s.size() != 4) return c.error("needs a 4-D input");
  const int64_t b = c.attrInt("blocksize", 0), n = s[0], ch = s[1], h = s[2], w = s[3];
  if (b <= 0 || ch % (b * b) != 0) return c.error("channels not divisible by blocksize^2");
  const bool crd = c.attrString("mode", "DCR") == "CRD";
  Shape mid = crd ? Shape{n, ch / (b * b), b, b, h, w} : Shape{n, b, b, ch / (b * b), h, w};
  std::vector<int64_t> perm = crd ? std::vector<int64_t>{0, 1, 4, 2, 5, 3} : std::vector<int64_t>{0, 3, 4, 1, 5, 2};
  DFC_TRY_ASSIGN(r, c.reshape(x, mid));
  DFC_TRY_ASSIGN(t, c.transpose(r, perm));
  DFC_TRY_ASSIGN(y, c.reshape(t, {n, ch / (b * b), h * b, w * b}));
  c.setOutput(0, y);
  return {};
}

Status mapSpaceToDepth(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  const Shape s = c.shape(x);
  if (s.size() != 4) return c.error("needs a 4-D input");
  const int64_t b = c.attrInt("blocksize", 0), n = s[0], ch = s[1], h = s[2], w = s[3];
  if (b <= 0 || h % b != 0 || w % b != 0) return c.error("height and width must be divisible by blocksize");
  DFC_TRY_ASSIGN(r, c.reshape(x, {n, ch, h / b, b, w / b, b}));
  DFC_TRY_ASSIGN(t, c.transpose(r, {0, 3, 5, 1, 2, 4}));
  DFC_TRY_ASSIGN(y, c.reshape(t, {n, ch * b * b, h / b, w / b}));
  c.setOutput(0, y);
  return {};
}

Status mapTrilu(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  const Shape s = c.shape(x);
  if (s.size() < 2) return c.error("needs an input of rank >= 2");
  int64_t k = 0;
  if (ValueId kv = c.input(1); kv != ir::kNoValue) {
    DFC_TRY_ASSIGN(kk, c.constInts(kv, "k"));
    if (kk.size() != 1) return c.error("k must be a scalar");
    k = kk[0];
  }
  const bool upper = c.attrInt("upper", 1) != 0;
  const int64_t rows = s[s.size() - 2], cols = s.back();
  ir::Tensor mask(ir::TensorType{DType::Bool, {rows, cols}});
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) mask.data<bool>()[i * cols + j] = upper ? j - i >= k : j - i <= k;
  ValueId m = c.constant(std::move(mask), "mask");
  ValueId zero = c.constant(filled(c.type(x).dtype, {}, 0), "zero");
  DFC_TRY_ASSIGN(y, c.emit(OpKind::Where, {m, x, zero}));
  c.setOutput(0, y);
  return {};
}

// Neg/Abs also for integers (the general unary op is float-only).
MapFn signOp(bool abs) {
  return [abs](ImportContext& c) -> Status {
    DFC_TRY_ASSIGN(x, c.requireInput(0));
    const DType dt = c.type(x).dtype;
    Expected<ValueId> y = ir::kNoValue;
    if (dt == DType::F32) {
      y = c.unary(abs ? "abs" : "neg", x);
    } else {
      ValueId zero = c.constant(filled(dt, {}, 0), "zero");
      DFC_TRY_ASSIGN(neg, c.binary("sub", zero, x));
      if (abs) {
        DFC_TRY_ASSIGN(lt, c.binary("less", x, zero));
        y = c.emit(OpKind::Where, {lt, neg, x});
      } else {
        y = neg;
      }
    }
    if (!y) return y.error();
    c.setOutput(0, *y);
    return {};
  };
}

// Einsum: "..." stands for the same leading axes in every term (letters the
// equation does not use, aligned right); a letter repeated in a term takes
// that term's diagonal first. Operands are then contracted
// left to right, two at a time: batch letters (both operands and needed later),
// contracted letters (both, not needed later), free letters (one operand) ->
// transpose, batched matmul. Letters needed by no one later are summed first.
// An equation without "->" outputs its letters that appear once, sorted.
struct EinsumTerm {
  ValueId value;
  std::string letters;
};

bool hasLetter(const std::string& s, char ch) { return s.find(ch) != std::string::npos; }

Expected<ValueId> permuteLetters(ImportContext& c, ValueId v, const std::string& from, const std::string& to) {
  std::vector<int64_t> perm;
  for (char ch : to) perm.push_back(static_cast<int64_t>(from.find(ch)));
  return c.transpose(v, perm);
}

// Sums the letters of t that `keep` does not hold.
Expected<EinsumTerm> sumLetters(ImportContext& c, EinsumTerm t, const std::string& keep) {
  std::vector<int64_t> axes;
  std::string rest;
  for (size_t k = 0; k < t.letters.size(); ++k) {
    if (hasLetter(keep, t.letters[k])) rest += t.letters[k];
    else axes.push_back(static_cast<int64_t>(k));
  }
  if (axes.empty()) return t;
  DFC_TRY_ASSIGN(v, c.emit(OpKind::Reduce, {t.value}, {{"fn", std::string("sum")}, {"axes", axes}, {"keepdims", int64_t{0}}}));
  return EinsumTerm{v, rest};
}

// a x b keeping the letters in `keep`; the result's letters are batch + m + n.
Expected<EinsumTerm> contractPair(ImportContext& c, EinsumTerm a0, EinsumTerm b0, const std::string& keep,
                                  std::map<char, int64_t>& dim) {
  DFC_TRY_ASSIGN(a, sumLetters(c, a0, keep + b0.letters));
  DFC_TRY_ASSIGN(b, sumLetters(c, b0, keep + a.letters));
  std::string batch, m, n, k;
  for (char ch : a.letters) (hasLetter(b.letters, ch) ? (hasLetter(keep, ch) ? batch : k) : m) += ch;
  for (char ch : b.letters)
    if (!hasLetter(a.letters, ch)) n += ch;
  auto size = [&](const std::string& s) {
    int64_t p = 1;
    for (char ch : s) p *= dim[ch];
    return p;
  };
  DFC_TRY_ASSIGN(at, permuteLetters(c, a.value, a.letters, batch + m + k));
  DFC_TRY_ASSIGN(bt, permuteLetters(c, b.value, b.letters, batch + k + n));
  Shape as{size(m), size(k)}, bs{size(k), size(n)};
  if (!batch.empty()) {
    as.insert(as.begin(), size(batch));
    bs.insert(bs.begin(), size(batch));
  }
  DFC_TRY_ASSIGN(a2, c.reshape(at, as));
  DFC_TRY_ASSIGN(b2, c.reshape(bt, bs));
  DFC_TRY_ASSIGN(mm, onnxMatMul(c, a2, b2));
  Shape full;
  const std::string order = batch + m + n;
  for (char ch : order) full.push_back(dim[ch]);
  DFC_TRY_ASSIGN(r, c.reshape(mm, full));
  return EinsumTerm{r, order};
}

// "ab,bc" -> {"ab", "bc"}.
std::vector<std::string> splitTerms(const std::string& lhs) {
  std::vector<std::string> terms;
  for (size_t at = 0;;) {
    auto comma = lhs.find(',', at);
    terms.push_back(lhs.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) return terms;
    at = comma + 1;
  }
}

// The equation with each "..." written out as letters it does not use, one per
// axis the ellipsis covers in that input (the last of the widest's letters).
Expected<std::string> expandEllipsis(ImportContext& c, std::string eq) {
  if (eq.find("...") == std::string::npos) return eq;
  std::string spare;
  for (char ch = 'A'; ch <= 'Z'; ++ch)
    if (!hasLetter(eq, ch)) spare += ch;
  const auto arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms = splitTerms(lhs);
  if (static_cast<int>(terms.size()) != c.numInputs()) return c.error("equation and inputs differ in count");
  size_t widest = 0;
  std::vector<size_t> covered(terms.size(), 0);
  for (size_t i = 0; i < terms.size(); ++i) {
    if (terms[i].find("...") == std::string::npos) continue;
    const int64_t explicitLetters = static_cast<int64_t>(terms[i].size()) - 3;
    const int64_t rank = c.rank(c.input(static_cast<int>(i)));
    if (rank < explicitLetters) return c.error("term " + terms[i] + " has more letters than its input has axes");
    covered[i] = static_cast<size_t>(rank - explicitLetters);
    widest = std::max(widest, covered[i]);
  }
  if (widest > spare.size()) return c.error("the ellipsis covers more axes than there are spare letters");
  const std::string all = spare.substr(0, widest);
  std::string out;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (auto at = terms[i].find("..."); at != std::string::npos)
      terms[i].replace(at, 3, all.substr(widest - covered[i]));
    out += (i ? "," : "") + terms[i];
  }
  if (arrow == std::string::npos)
    return out + "->" + all + [&] {  // implicit: the ellipsis, then the single letters
      std::string single;
      for (char ch : lhs)
        if (ch != ',' && ch != '.' && std::count(lhs.begin(), lhs.end(), ch) == 1) single += ch;
      std::sort(single.begin(), single.end());
      return single;
    }();
  std::string rhs = eq.substr(arrow + 2);
  if (auto at = rhs.find("..."); at != std::string::npos) rhs.replace(at, 3, all);
  return out + "->" + rhs;
}

// Term t's diagonal over each letter it repeats: x times the identity on the
// two axes, summed over the second.
Expected<EinsumTerm> takeDiagonals(ImportContext& c, EinsumTerm t) {
  for (size_t p = 0; p < t.letters.size(); ++p)
    for (size_t q = p + 1; q < t.letters.size();) {
      if (t.letters[q] != t.letters[p]) {
        ++q;
        continue;
      }
      const Shape s = c.shape(t.value);
      const int64_t n = s[p];
      if (s[q] != n) return c.error("a repeated letter's axes differ in size");
      Shape eyeShape(s.size(), 1);
      eyeShape[p] = eyeShape[q] = n;
      ir::Tensor eye(ir::TensorType{DType::F32, eyeShape});
      for (int64_t i = 0; i < n * n; ++i) eye.data<float>()[i] = i / n == i % n ? 1.0f : 0.0f;
      DFC_TRY_ASSIGN(masked, c.binary("mul", t.value, c.constant(std::move(eye), "diagonal")));
      DFC_TRY_ASSIGN(v, c.emit(OpKind::Reduce, {masked},
                               {{"fn", std::string("sum")},
                                {"axes", std::vector<int64_t>{static_cast<int64_t>(q)}},
                                {"keepdims", int64_t{0}}}));
      t.value = v;
      t.letters.erase(q, 1);
    }
  return t;
}

// The equation's terms and output ("ij,jk" alone outputs "ik").
Expected<std::pair<std::vector<std::string>, std::string>> parseEinsum(ImportContext& c) {
  std::string eq0 = c.attrString("equation", "");
  eq0.erase(std::remove(eq0.begin(), eq0.end(), ' '), eq0.end());
  DFC_TRY_ASSIGN(eq, expandEllipsis(c, eq0));
  auto arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow), out;
  if (arrow != std::string::npos) out = eq.substr(arrow + 2);
  else
    for (char ch : lhs)
      if (ch != ',' && std::count(lhs.begin(), lhs.end(), ch) == 1) out += ch;
  if (arrow == std::string::npos) std::sort(out.begin(), out.end());
  std::vector<std::string> terms = splitTerms(lhs);
  return std::pair{terms, out};
}

Status mapEinsum(ImportContext& c) {
  DFC_TRY_ASSIGN(parsed, parseEinsum(c));
  const auto& [terms, out] = parsed;
  if (static_cast<int>(terms.size()) != c.numInputs()) return c.error("equation and inputs differ in count");
  auto unique = [](const std::string& t) {
    std::string s = t;
    std::sort(s.begin(), s.end());
    return std::adjacent_find(s.begin(), s.end()) == s.end();
  };
  if (!unique(out)) return c.error("repeated letters in the output");
  std::map<char, int64_t> dim;
  std::vector<EinsumTerm> ins;
  for (size_t i = 0; i < terms.size(); ++i) {
    DFC_TRY_ASSIGN(v, c.requireInput(static_cast<int>(i)));
    if (c.type(v).dtype != DType::F32) return c.error("only float Einsum is supported");
    if (static_cast<int64_t>(terms[i].size()) != c.rank(v)) return c.error("term " + terms[i] + " does not match the input rank");
    for (size_t k = 0; k < terms[i].size(); ++k) {
      auto [it, fresh] = dim.emplace(terms[i][k], c.shape(v)[k]);
      if (!fresh && it->second != c.shape(v)[k]) return c.error("letter sizes differ (broadcast is not supported)");
    }
    DFC_TRY_ASSIGN(t,
                   unique(terms[i]) ? Expected<EinsumTerm>(EinsumTerm{v, terms[i]}) : takeDiagonals(c, {v, terms[i]}));
    ins.push_back(t);
  }
  for (char ch : out)
    if (!dim.count(ch)) return c.error("output letter not in the inputs");
  EinsumTerm acc = ins[0];
  for (size_t i = 1; i < ins.size(); ++i) {
    std::string keep = out;  // letters the output or a later operand needs
    for (size_t j = i + 1; j < ins.size(); ++j) keep += ins[j].letters;
    DFC_TRY_ASSIGN(next, contractPair(c, acc, ins[i], keep, dim));
    acc = next;
  }
  DFC_TRY_ASSIGN(summed, sumLetters(c, acc, out));
  DFC_TRY_ASSIGN(y, permuteLetters(c, summed.value, summed.letters, out));
  if (y == ins[0].value) {
    DFC_TRY_ASSIGN(copy, c.unary("identity", y));
    y = copy;
  }
  c.setOutput(0, y);
  return {};
}

}  // namespace

void registerLayoutOps(OpTable& t) {
  t["Pad"] = mapPad;
  t["DepthToSpace"] = mapDepthToSpace;
  t["SpaceToDepth"] = mapSpaceToDepth;
  t["Trilu"] = mapTrilu;
  t["Neg"] = signOp(false);
  t["Abs"] = signOp(true);
  t["Einsum"] = mapEinsum;
}

}  // namespace dfc::onnx
