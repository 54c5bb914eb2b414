// Shape and data-movement ONNX ops (Reshape, Flatten, Transpose, Squeeze,
// Unsqueeze, Concat, Split, Slice, Gather, Expand, Tile), constants and
// shape arithmetic (Constant, Shape, Size, ConstantOfShape, Range: constant at
// import), and the reductions.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "ir/ShapeProduct.h"
#include "onnx/ImportContext.h"

namespace dfc::onnx {
namespace {

using ir::DType;
using ir::OpKind;
using ir::Shape;
using ir::ValueId;

ir::Tensor intsTensor(const std::vector<int64_t>& v, Shape shape) {
  ir::Tensor t(ir::TensorType{DType::I64, std::move(shape)});
  std::copy(v.begin(), v.end(), t.data<int64_t>());
  return t;
}

// A copy of x with a new value (so that an output never aliases its input).
Expected<ValueId> reshapeOrCopy(ImportContext& c, ValueId x, const Shape& s) {
  if (c.shape(x) == s) return x;
  return c.reshape(x, s);
}

Status mapReshape(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY_ASSIGN(sv, c.requireInput(1));
  DFC_TRY_ASSIGN(spec, c.constInts(sv, "the shape input"));
  const bool allowZero = c.attrInt("allowzero", 0) != 0;
  const Shape& in = c.shape(x);
  Shape out;
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < spec.size(); ++i) {
    int64_t d = spec[i];
    if (d == 0 && !allowZero) {
      if (i >= in.size()) return c.error("shape entry 0 copies a dimension the input does not have");
      d = in[i];
    }
    if (d == -1) {
      if (infer >= 0) return c.error("more than one -1 in the shape");
      infer = static_cast<int64_t>(i);
      out.push_back(1);
      continue;
    }
    if (d <= 0) return c.error("bad shape entry " + std::to_string(d));
    if (__builtin_mul_overflow(known, d, &known))  // found by fuzz_onnx_importer
      return c.error("shape entries overflow 64 bits at entry " + std::to_string(i));
    out.push_back(d);
  }
  const int64_t total = c.type(x).numElements();
  if (infer >= 0) {
    if (total % known != 0) return c.error("cannot reshape " + c.type(x).toString());
    out[static_cast<size_t>(infer)] = total / known;
  }
  if (ir::dimProduct(out, 0, out.size()) != total)
    return c.error("cannot reshape " + c.type(x).toString() + " to the given shape");
  DFC_TRY_ASSIGN(y, reshapeOrCopy(c, x, out));
  c.setOutput(0, y);
  return {};
}

Status mapFlatten(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  const Shape& s = c.shape(x);
  const int64_t rank = static_cast<int64_t>(s.size());
  int64_t a = c.attrInt("axis", 1);
  if (a < 0) a += rank;
  if (a < 0 || a > rank) return c.error("axis out of range");
  DFC_TRY_ASSIGN(y, reshapeOrCopy(c, x,
                                  {ir::dimProduct(s, 0, static_cast<size_t>(a)),
                                   ir::dimProduct(s, static_cast<size_t>(a), s.size())}));
  c.setOutput(0, y);
  return {};
}

Status mapTranspose(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  auto perm = c.attrInts("perm");
  const int64_t rank = c.rank(x);
  if (perm.empty())
    for (int64_t d = rank - 1; d >= 0; --d) perm.push_back(d);
  // ONNX's perm is a permutation of 0..rank-1: no negative axes, no repeats.
  std::vector<char> taken(static_cast<size_t>(rank), 0);
  if (static_cast<int64_t>(perm.size()) != rank)
    return c.error("perm has " + std::to_string(perm.size()) + " entries for an input of rank " + std::to_string(rank));
  for (int64_t p : perm) {
    if (p < 0 || p >= rank) return c.error("perm entry " + std::to_string(p) + " is not an axis in 0.." + std::to_string(rank - 1));
    if (taken[static_cast<size_t>(p)]++) return c.error("perm names axis " + std::to_string(p) + " twice");
  }
  DFC_TRY_ASSIGN(y, c.transpose(x, perm));
  c.setOutput(0, y);
  return {};
}

// Squeeze/Unsqueeze axes: an attribute before opset 13, an input after.
Expected<std::vector<int64_t>> axesArg(ImportContext& c, int inputIndex, int sinceOpset) {
  if (c.opset() >= sinceOpset) {
    ValueId v = c.input(inputIndex);
    if (v == ir::kNoValue) return std::vector<int64_t>{};
    return c.constInts(v, "the axes input");
  }
  return c.attrInts("axes");
}

Status mapSqueeze(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY_ASSIGN(axes, axesArg(c, 1, 13));
  const Shape& s = c.shape(x);
  const int64_t rank = static_cast<int64_t>(s.size());
  std::vector<bool> drop(s.size(), false);
  if (axes.empty())
    for (size_t d = 0; d < s.size(); ++d) drop[d] = s[d] == 1;
  for (int64_t a : axes) {
    DFC_TRY_ASSIGN(n, c.dimAxis(a, rank));
    if (s[static_cast<size_t>(n)] != 1) return c.error("cannot squeeze axis " + std::to_string(a) + " of size " + std::to_string(s[static_cast<size_t>(n)]));
    drop[static_cast<size_t>(n)] = true;
  }
  Shape out;
  for (size_t d = 0; d < s.size(); ++d)
    if (!drop[d]) out.push_back(s[d]);
  DFC_TRY_ASSIGN(y, reshapeOrCopy(c, x, out));
  c.setOutput(0, y);
  return {};
}

Status mapUnsqueeze(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY_ASSIGN(axes, axesArg(c, 1, 13));
  const Shape& s = c.shape(x);
  const int64_t outRank = static_cast<int64_t>(s.size() + axes.size());
  std::vector<bool> unit(static_cast<size_t>(outRank), false);
  for (int64_t a : axes) {
    DFC_TRY_ASSIGN(n, c.axis(a, outRank));
    if (unit[static_cast<size_t>(n)]) return c.error("repeated axis");
    unit[static_cast<size_t>(n)] = true;
  }
  Shape out;
  size_t k = 0;
  for (int64_t d = 0; d < outRank; ++d) out.push_back(unit[static_cast<size_t>(d)] ? 1 : s[k++]);
  DFC_TRY_ASSIGN(y, c.reshape(x, out));
  c.setOutput(0, y);
  return {};
}

Status mapConcat(ImportContext& c) {
  std::vector<ValueId> ins;
  for (int i = 0; i < c.numInputs(); ++i) {
    DFC_TRY_ASSIGN(v, c.requireInput(i));
    ins.push_back(v);
  }
  if (ins.empty()) return c.error("needs inputs");
  DFC_TRY_ASSIGN(axis, c.axis(c.attrInt("axis", 0), c.rank(ins[0])));
  DFC_TRY_ASSIGN(y, ins.size() == 1 ? c.unary("identity", ins[0]) : c.emit(OpKind::Concat, ins, {{"axis", axis}}));
  c.setOutput(0, y);
  return {};
}

Expected<ValueId> slice(ImportContext& c, ValueId x, std::vector<int64_t> starts, std::vector<int64_t> ends,
                        std::vector<int64_t> steps) {
  return c.emit(OpKind::StridedSlice, {x}, {{"starts", starts}, {"ends", ends}, {"steps", steps}});
}

Status mapSplit(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  const Shape& s = c.shape(x);
  DFC_TRY_ASSIGN(axis, c.dimAxis(c.attrInt("axis", 0), static_cast<int64_t>(s.size())));
  std::vector<int64_t> sizes;
  if (c.opset() >= 13) {
    if (ValueId v = c.input(1); v != ir::kNoValue) {
      DFC_TRY_ASSIGN(sz, c.constInts(v, "the split input"));
      sizes = sz;
    }
  } else {
    sizes = c.attrInts("split");
  }
  const int64_t len = s[static_cast<size_t>(axis)], n = c.numOutputs();
  if (sizes.empty()) {
    if (len % n != 0) return c.error("axis of size " + std::to_string(len) + " does not split evenly in " + std::to_string(n));
    sizes.assign(static_cast<size_t>(n), len / n);
  }
  if (static_cast<int64_t>(sizes.size()) != n) return c.error("split sizes do not match the outputs");
  int64_t at = 0;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<int64_t> starts(s.size(), 0), ends(s.begin(), s.end()), steps(s.size(), 1);
    starts[static_cast<size_t>(axis)] = at;
    ends[static_cast<size_t>(axis)] = at + sizes[static_cast<size_t>(i)];
    at += sizes[static_cast<size_t>(i)];
    DFC_TRY_ASSIGN(y, slice(c, x, starts, ends, steps));
    c.setOutput(static_cast<int>(i), y);
  }
  if (at != len) return c.error("split sizes do not add up to the axis");
  return {};
}

Status mapSlice(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  const Shape& s = c.shape(x);
  const int64_t rank = static_cast<int64_t>(s.size());
  std::vector<int64_t> st, en, ax, sp;
  {
    DFC_TRY_ASSIGN(v1, c.requireInput(1));
    DFC_TRY_ASSIGN(v2, c.requireInput(2));
    DFC_TRY_ASSIGN(a, c.constInts(v1, "starts"));
    DFC_TRY_ASSIGN(b, c.constInts(v2, "ends"));
    st = a;
    en = b;
  }
  if (ValueId v = c.input(3); v != ir::kNoValue) {
    DFC_TRY_ASSIGN(a, c.constInts(v, "axes"));
    ax = a;
  } else {
    for (size_t i = 0; i < st.size(); ++i) ax.push_back(static_cast<int64_t>(i));
  }
  if (ValueId v = c.input(4); v != ir::kNoValue) {
    DFC_TRY_ASSIGN(a, c.constInts(v, "steps"));
    sp = a;
  } else {
    sp.assign(st.size(), 1);
  }
  if (en.size() != st.size() || ax.size() != st.size() || sp.size() != st.size())
    return c.error("starts, ends, axes and steps differ in length");
  std::vector<int64_t> starts(s.size(), 0), ends(s.begin(), s.end()), steps(s.size(), 1);
  std::vector<char> sliced(s.size(), 0);
  for (size_t i = 0; i < st.size(); ++i) {
    DFC_TRY_ASSIGN(a, c.dimAxis(ax[i], rank));
    if (sliced[static_cast<size_t>(a)]++)  // ONNX leaves a repeated axis undefined: refuse, do not guess
      return c.error("axes name axis " + std::to_string(a) + " twice");
    const int64_t dim = s[static_cast<size_t>(a)], step = sp[i];
    if (step == 0) return c.error("step 0");
    int64_t b = st[i], e = en[i];
    if (b < 0) b += dim;
    if (e < 0) e += dim;
    if (step > 0) {
      b = std::clamp<int64_t>(b, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
    } else {
      b = std::clamp<int64_t>(b, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
    }
    starts[static_cast<size_t>(a)] = b;
    ends[static_cast<size_t>(a)] = e;
    steps[static_cast<size_t>(a)] = step;
  }
  DFC_TRY_ASSIGN(y, slice(c, x, starts, ends, steps));
  c.setOutput(0, y);
  return {};
}

Status mapGather(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY_ASSIGN(idx, c.requireInput(1));
  DFC_TRY_ASSIGN(axis, c.axis(c.attrInt("axis", 0), c.rank(x)));
  DFC_TRY_ASSIGN(y, c.emit(OpKind::Gather, {x, idx}, {{"axis", axis}}));
  c.setOutput(0, y);
  return {};
}

Status mapExpand(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY_ASSIGN(sv, c.requireInput(1));
  DFC_TRY_ASSIGN(shape, c.constInts(sv, "the shape input"));
  DFC_TRY_ASSIGN(y, c.emit(OpKind::Expand, {x}, {{"shape", shape}}));
  c.setOutput(0, y);
  return {};
}

// Tile: [d0, d1] -> reshape [1, d0, 1, d1] -> expand [r0, d0, r1, d1] -> reshape [r0 d0, r1 d1].
Status mapTile(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY_ASSIGN(rv, c.requireInput(1));
  DFC_TRY_ASSIGN(reps, c.constInts(rv, "repeats"));
  const Shape& s = c.shape(x);
  if (reps.size() != s.size()) return c.error("repeats must have one entry per axis");
  Shape inter, expanded, out;
  for (size_t d = 0; d < s.size(); ++d) {
    if (reps[d] < 1) return c.error("repeats must be positive");
    inter.insert(inter.end(), {1, s[d]});
    expanded.insert(expanded.end(), {reps[d], s[d]});
    out.push_back(reps[d] * s[d]);
  }
  DFC_TRY_ASSIGN(r, c.reshape(x, inter));
  DFC_TRY_ASSIGN(e, c.emit(OpKind::Expand, {r}, {{"shape", expanded}}));
  DFC_TRY_ASSIGN(y, reshapeOrCopy(c, e, out));
  c.setOutput(0, y);
  return {};
}

Status mapShape(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  const Shape& s = c.shape(x);
  const int64_t rank = static_cast<int64_t>(s.size());
  int64_t b = c.attrInt("start", 0), e = c.attrInt("end", rank);
  if (b < 0) b += rank;
  if (e < 0) e += rank;
  b = std::clamp<int64_t>(b, 0, rank);
  e = std::clamp<int64_t>(e, 0, rank);
  if (e <= b) return c.error("an empty shape slice is not supported");
  std::vector<int64_t> dims(s.begin() + b, s.begin() + e);
  c.setOutput(0, c.constant(intsTensor(dims, {static_cast<int64_t>(dims.size())}), "shape"));
  return {};
}

Status mapSize(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  c.setOutput(0, c.constant(intsTensor({c.type(x).numElements()}, {}), "size"));
  return {};
}

Expected<ir::Tensor> attrTensor(ImportContext& c, const ::onnx::AttributeProto& a) {
  auto t = tensorFromProto(a.t(), c.baseDir());
  if (!t) return c.error(t.error().message());
  return t;
}

Status mapConstant(ImportContext& c) {
  if (auto a = c.attr("value")) {
    DFC_TRY_ASSIGN(t, attrTensor(c, *a));
    c.setOutput(0, c.constant(std::move(t), "value"));
  } else if (auto f = c.attr("value_float")) {
    c.setOutput(0, c.constant(ir::Tensor::scalarF32(f->f()), "value"));
  } else if (auto fs = c.attr("value_floats")) {
    ir::Tensor t(ir::TensorType{DType::F32, {fs->floats_size()}});
    if (fs->floats_size() == 0) return c.error("empty constant");
    for (int i = 0; i < fs->floats_size(); ++i) t.data<float>()[i] = fs->floats(i);
    c.setOutput(0, c.constant(std::move(t), "value"));
  } else if (auto i = c.attr("value_int")) {
    c.setOutput(0, c.constant(intsTensor({i->i()}, {}), "value"));
  } else if (auto is = c.attr("value_ints")) {
    if (is->ints_size() == 0) return c.error("empty constant");
    std::vector<int64_t> v(is->ints().begin(), is->ints().end());
    c.setOutput(0, c.constant(intsTensor(v, {static_cast<int64_t>(v.size())}), "value"));
  } else {
    return c.error("only tensor, float(s) and int(s) constants are supported");
  }
  return {};
}

Status mapConstantOfShape(ImportContext& c) {
  DFC_TRY_ASSIGN(sv, c.requireInput(0));
  DFC_TRY_ASSIGN(shape, c.constInts(sv, "the shape input"));
  ir::Tensor fill = ir::Tensor::scalarF32(0.0f);
  if (auto a = c.attr("value")) {
    DFC_TRY_ASSIGN(t, attrTensor(c, *a));
    if (t.numElements() != 1) return c.error("value must hold one element");
    fill = std::move(t);
  }
  for (int64_t d : shape)
    if (d <= 0) return c.error("empty or negative dimensions are not supported");
  DFC_TRY(c.checkSize(ir::TensorType{fill.dtype(), shape}, "output"));
  ir::Tensor out(ir::TensorType{fill.dtype(), shape});
  const size_t es = ir::dtypeSize(fill.dtype());
  for (int64_t i = 0; i < out.numElements(); ++i) std::memcpy(out.bytes() + i * static_cast<int64_t>(es), fill.bytes(), es);
  c.setOutput(0, c.constant(std::move(out), "fill"));
  return {};
}

Status mapRange(ImportContext& c) {
  std::vector<double> v;
  for (int i = 0; i < 3; ++i) {
    DFC_TRY_ASSIGN(in, c.requireInput(i));
    DFC_TRY_ASSIGN(f, c.constFloats(in, i == 0 ? "start" : i == 1 ? "limit" : "delta"));
    if (f.size() != 1) return c.error("start, limit and delta must be scalars");
    v.push_back(f[0]);
  }
  DFC_TRY_ASSIGN(in0, c.requireInput(0));
  const DType dt = c.type(in0).dtype;
  if (v[2] == 0) return c.error("delta 0");
  const double count = std::ceil((v[1] - v[0]) / v[2]);
  if (!std::isfinite(count) || count > 9.0e15) return c.error("start, limit and delta give no countable range");
  const int64_t n = std::max<int64_t>(0, static_cast<int64_t>(count));
  if (n == 0) return c.error("an empty range is not supported");
  DFC_TRY(c.checkSize(ir::TensorType{dt, {n}}, "output"));
  ir::Tensor out(ir::TensorType{dt, {n}});
  // Integer ranges in integers (wrapping, as two's complement does), exact at any magnitude.
  uint64_t start = 0, delta = 0;
  if (dt != DType::F32) {
    DFC_TRY_ASSIGN(s0, c.constInts(in0, "start"));
    DFC_TRY_ASSIGN(d0, c.constInts(c.input(2), "delta"));
    start = static_cast<uint64_t>(s0.front());
    delta = static_cast<uint64_t>(d0.front());
  }
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t value = start + static_cast<uint64_t>(i) * delta;
    switch (dt) {
      case DType::F32: out.data<float>()[i] = static_cast<float>(v[0]) + static_cast<float>(i) * static_cast<float>(v[2]); break;
      case DType::I64: out.data<int64_t>()[i] = static_cast<int64_t>(value); break;
      case DType::I32: out.data<int32_t>()[i] = static_cast<int32_t>(static_cast<uint32_t>(value)); break;
      case DType::Bool: return c.error("bool range");
    }
  }
  c.setOutput(0, c.constant(std::move(out), "range"));
  return {};
}

// Reduce*: axes from the attribute, or (ReduceSum since 13) the second input.
MapFn reduceOp(std::string fn) {
  return [fn](ImportContext& c) -> Status {
    DFC_TRY_ASSIGN(x, c.requireInput(0));
    const int64_t rank = c.rank(x);
    std::vector<int64_t> axes;
    const bool axesInput = fn == "sum" && c.opset() >= 13;
    if (axesInput) {
      if (ValueId v = c.input(1); v != ir::kNoValue) {
        DFC_TRY_ASSIGN(a, c.constInts(v, "the axes input"));
        axes = a;
      }
    } else {
      axes = c.attrInts("axes");
    }
    if (axes.empty()) {
      if (axesInput && c.attrInt("noop_with_empty_axes", 0) != 0) {
        DFC_TRY_ASSIGN(y, c.unary("identity", x));
        c.setOutput(0, y);
        return {};
      }
      for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
    }
    for (int64_t& a : axes) {
      DFC_TRY_ASSIGN(n, c.axis(a, rank));
      a = n;
    }
    std::sort(axes.begin(), axes.end());
    if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) return c.error("repeated axis");
    if (c.type(x).dtype != DType::F32) return c.error("only float reductions are supported");
    DFC_TRY_ASSIGN(y, c.emit(OpKind::Reduce, {x}, {{"fn", fn}, {"axes", axes}, {"keepdims", c.attrInt("keepdims", 1)}}));
    c.setOutput(0, y);
    return {};
  };
}

}  // namespace

void registerShapeOps(OpTable& t) {
  t["Reshape"] = mapReshape;
  t["Flatten"] = mapFlatten;
  t["Transpose"] = mapTranspose;
  t["Squeeze"] = mapSqueeze;
  t["Unsqueeze"] = mapUnsqueeze;
  t["Concat"] = mapConcat;
  t["Split"] = mapSplit;
  t["Slice"] = mapSlice;
  t["Gather"] = mapGather;
  t["Expand"] = mapExpand;
  t["Tile"] = mapTile;
  t["Shape"] = mapShape;
  t["Size"] = mapSize;
  t["Constant"] = mapConstant;
  t["ConstantOfShape"] = mapConstantOfShape;
  t["Range"] = mapRange;
  for (auto [onnx, fn] : std::vector<std::pair<std::string, std::string>>{
           {"ReduceSum", "sum"}, {"ReduceMean", "mean"}, {"ReduceMax", "max"}, {"ReduceMin", "min"},
           {"ReduceProd", "prod"}, {"ReduceL1", "l1"}, {"ReduceL2", "l2"}, {"ReduceSumSquare", "sum_square"},
           {"ReduceLogSumExp", "log_sum_exp"}, {"ReduceLogSum", "log_sum"}})
    t[onnx] = reduceOp(fn);
}

}  // namespace dfc::onnx
