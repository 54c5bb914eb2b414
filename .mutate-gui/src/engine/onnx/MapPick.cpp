// Ops that pick one element per position along an axis: GatherElements,
// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss. Each is composed from
// a one-hot mask of the index (equal against 0..D-1) and a sum over that axis,
// so they need no gather kernel and their gradients come from the ops they are
// made of; the price is an index-by-D mask, fine for class counts and the
// moderate axes these ops see.
#include <numeric>

#include <cmath>

#include "onnx/ImportContext.h"

namespace dfc::onnx {

ir::ValueId indicesAlong(ImportContext& c, int64_t count, size_t rank, size_t axis) {
  ir::Shape shape(rank, 1);
  shape[axis] = count;
  ir::Tensor t(ir::TensorType{ir::DType::I64, shape});
  std::iota(t.data<int64_t>(), t.data<int64_t>() + count, int64_t{0});
  return c.constant(std::move(t), "index_along");
}

Expected<ir::ValueId> wrapNegativeIndices(ImportContext& c, ir::ValueId index, int64_t extent) {
  const ir::DType idt = c.type(index).dtype;
  if (idt != ir::DType::I64 && idt != ir::DType::I32) return c.error("indices must be int32 or int64");
  if (idt == ir::DType::I32) {
    DFC_TRY_ASSIGN(i64, c.cast(index, ir::DType::I64));
    index = i64;
  }
  if (const ir::Tensor* k = c.constData(index)) {  // constant indices: bounds checked here, negatives wrapped
    ir::Tensor wrapped = *k;
    for (int64_t i = 0; i < wrapped.numElements(); ++i) {
      int64_t& v = wrapped.data<int64_t>()[i];
      if (v < -extent || v >= extent)
        return c.error("index " + std::to_string(v) + " is out of range for axis size " + std::to_string(extent));
      if (v < 0) v += extent;
    }
    return c.constant(std::move(wrapped), "index");
  }
  // Negative indices count from the end: index + extent * (index < 0).
  ir::Tensor zero(ir::TensorType{ir::DType::I64, {}}), size(ir::TensorType{ir::DType::I64, {}});
  size.data<int64_t>()[0] = extent;
  DFC_TRY_ASSIGN(negative, c.binary("less", index, c.constant(std::move(zero), "zero")));
  DFC_TRY_ASSIGN(negative64, c.cast(negative, ir::DType::I64));
  DFC_TRY_ASSIGN(shift, c.binary("mul", negative64, c.constant(std::move(size), "axis_size")));
  return c.binary("add", index, shift);
}

namespace {

using ir::DType;
using ir::OpKind;
using ir::Shape;
using ir::ValueId;

Expected<ValueId> reduceSum(ImportContext& c, ValueId x, std::vector<int64_t> axes, bool keepdims) {
  return c.emit(OpKind::Reduce, {x}, {{"fn", std::string("sum")}, {"axes", std::move(axes)},
                                      {"keepdims", int64_t{keepdims ? 1 : 0}}});
}

ValueId classIndices(ImportContext& c, int64_t classes, size_t rank) { return indicesAlong(c, classes, rank, 1); }

// GatherElements: out[.., i, ..] = data[.., index[.., i, ..], ..] along `axis`.
// data (sliced to the index's extent off the axis) is broadcast against a one-hot
// of the index over a new axis right after `axis`, then summed over it.
Status mapGatherElements(ImportContext& c) {
  DFC_TRY_ASSIGN(data, c.requireInput(0));
  DFC_TRY_ASSIGN(index, c.requireInput(1));
  DFC_TRY(needFloat(c, data));
  const Shape ds = c.shape(data), is = c.shape(index);
  if (ds.empty() || ds.size() != is.size()) return c.error("data and indices need the same rank >= 1");
  DFC_TRY_ASSIGN(axis, c.dimAxis(c.attrInt("axis", 0), static_cast<int64_t>(ds.size())));
  const size_t ax = static_cast<size_t>(axis);
  const int64_t extent = ds[ax];
  std::vector<int64_t> starts(ds.size(), 0), ends(ds.begin(), ds.end()), steps(ds.size(), 1);
  for (size_t d = 0; d < ds.size(); ++d) {
    if (d != ax && is[d] > ds[d]) return c.error("indices are larger than data off the gather axis");
    if (d != ax) ends[d] = is[d];
  }
  if (ends != std::vector<int64_t>(ds.begin(), ds.end())) {
    DFC_TRY_ASSIGN(sliced, c.emit(OpKind::StridedSlice, {data}, {{"starts", starts}, {"ends", ends}, {"steps", steps}}));
    data = sliced;
  }
  DFC_TRY_ASSIGN(wrapped, wrapNegativeIndices(c, index, extent));
  index = wrapped;
  Shape indexShape = is, dataShape = c.shape(data);
  indexShape.insert(indexShape.begin() + static_cast<std::ptrdiff_t>(ax) + 1, 1);  // [.., I, 1, ..]
  dataShape.insert(dataShape.begin() + static_cast<std::ptrdiff_t>(ax), 1);        // [.., 1, D, ..]
  DFC_TRY_ASSIGN(index1, c.reshape(index, indexShape));
  DFC_TRY_ASSIGN(data1, c.reshape(data, dataShape));
  DFC_TRY_ASSIGN(hit, c.binary("equal", index1, indicesAlong(c, extent, indexShape.size(), ax + 1)));
  ir::Tensor zeroF(ir::TensorType{DType::F32, {}});
  // where, not mul: a one-hot times an inf elsewhere in the row would give nan
  DFC_TRY_ASSIGN(picked, c.emit(OpKind::Where, {hit, data1, c.constant(std::move(zeroF), "zero")}));
  DFC_TRY_ASSIGN(out, reduceSum(c, picked, {axis + 1}, false));
  c.setOutput(0, out);
  return {};
}

// -logp[n, target[n, d...], d...] weighted, ignore_index dropped, reduced.
Expected<ValueId> negativeLogLikelihood(ImportContext& c, ValueId logp, ValueId target, ValueId weight) {
  DFC_TRY(needFloat(c, logp));
  const Shape s = c.shape(logp);
  if (s.size() < 2) return c.error("needs an input [N, C, D1, ...] of rank >= 2");
  Shape targetShape = s;
  targetShape.erase(targetShape.begin() + 1);
  if (c.shape(target) != targetShape)
    return c.error("target is " + c.type(target).toString() + ", expected shape of the input without its class axis");
  const DType tdt = c.type(target).dtype;
  if (tdt != DType::I64 && tdt != DType::I32)
    return c.error("target must be int32 or int64, not " + std::string(ir::dtypeName(tdt)));
  if (tdt == DType::I32) {
    DFC_TRY_ASSIGN(t64, c.cast(target, DType::I64));
    target = t64;
  }
  Shape withClassAxis = s;
  withClassAxis[1] = 1;
  DFC_TRY_ASSIGN(target1, c.reshape(target, withClassAxis));
  DFC_TRY_ASSIGN(isClass, c.binary("equal", target1, classIndices(c, s[1], s.size())));
  DFC_TRY_ASSIGN(oneHot, c.cast(isClass, DType::F32));
  ValueId w = oneHot;  // [N, C, ...]: the target's weight at its class, 0 elsewhere
  if (weight != ir::kNoValue) {
    DFC_TRY(needFloat(c, weight));
    if (c.shape(weight) != Shape{s[1]}) return c.error("weight must be [C] = [" + std::to_string(s[1]) + "]");
    Shape wShape(s.size(), 1);
    wShape[1] = s[1];
    DFC_TRY_ASSIGN(w1, c.reshape(weight, wShape));
    DFC_TRY_ASSIGN(ww, c.binary("mul", oneHot, w1));
    w = ww;
  }
  DFC_TRY_ASSIGN(picked, c.binary("mul", logp, w));
  DFC_TRY_ASSIGN(pickedSum, reduceSum(c, picked, {1}, false));
  DFC_TRY_ASSIGN(loss, c.unary("neg", pickedSum));
  DFC_TRY_ASSIGN(weightOf, reduceSum(c, w, {1}, false));  // [N, D...]
  if (const auto* ii = c.attr("ignore_index")) {
    ir::Tensor ignored(ir::TensorType{DType::I64, {}});
    ignored.data<int64_t>()[0] = ii->i();
    DFC_TRY_ASSIGN(isIgnored, c.binary("equal", target, c.constant(std::move(ignored), "ignore_index")));
    DFC_TRY_ASSIGN(ignoredF, c.cast(isIgnored, DType::F32));
    DFC_TRY_ASSIGN(keep, c.binary("sub", c.scalarF32(1.0f), ignoredF));
    DFC_TRY_ASSIGN(keptLoss, c.binary("mul", loss, keep));
    DFC_TRY_ASSIGN(keptWeight, c.binary("mul", weightOf, keep));
    loss = keptLoss;
    weightOf = keptWeight;
  }
  const std::string reduction = c.attrString("reduction", "mean");
  if (reduction == "none") return loss;
  std::vector<int64_t> all(targetShape.size());
  std::iota(all.begin(), all.end(), int64_t{0});
  DFC_TRY_ASSIGN(total, reduceSum(c, loss, all, false));
  if (reduction == "sum") return total;
  if (reduction != "mean") return c.error("reduction '" + reduction + "' is not one of none, sum, mean");
  DFC_TRY_ASSIGN(totalWeight, reduceSum(c, weightOf, all, false));
  return c.binary("div", total, totalWeight);
}

Status mapNllLoss(ImportContext& c) {
  DFC_TRY_ASSIGN(logp, c.requireInput(0));
  DFC_TRY_ASSIGN(target, c.requireInput(1));
  DFC_TRY_ASSIGN(loss, negativeLogLikelihood(c, logp, target, c.input(2)));
  c.setOutput(0, loss);
  return {};
}

// loss = NLL(log_softmax(scores, axis 1)); output 1 is that log-probability.
Status mapSoftmaxCrossEntropyLoss(ImportContext& c) {
  DFC_TRY_ASSIGN(scores, c.requireInput(0));
  DFC_TRY_ASSIGN(target, c.requireInput(1));
  DFC_TRY(needFloat(c, scores));
  if (c.rank(scores) < 2) return c.error("needs scores [N, C, D1, ...] of rank >= 2");
  const ir::Attributes overClasses{{"axes", std::vector<int64_t>{1}}, {"keepdims", int64_t{1}}};
  ir::Attributes maxAttrs = overClasses, lseAttrs = overClasses;
  maxAttrs["fn"] = std::string("max");
  lseAttrs["fn"] = std::string("log_sum_exp");
  DFC_TRY_ASSIGN(mx, c.emit(OpKind::Reduce, {scores}, maxAttrs));
  DFC_TRY_ASSIGN(shifted, c.binary("sub", scores, mx));
  DFC_TRY_ASSIGN(lse, c.emit(OpKind::Reduce, {shifted}, lseAttrs));
  DFC_TRY_ASSIGN(logp, c.binary("sub", shifted, lse));
  DFC_TRY_ASSIGN(loss, negativeLogLikelihood(c, logp, target, c.input(2)));
  c.setOutput(0, loss);
  if (c.outputWanted(1)) c.setOutput(1, logp);
  return {};
}

// The index of the max (min) along `axis`, keepdims as [.., 1, ..], as f32:
// indices where x equals its max, the smallest (select_last_index: largest).
// `excluded` (bool, like x; optional) marks positions never picked.
Expected<ValueId> extremeIndex(ImportContext& c, ValueId x, int64_t axis, bool max, bool last,
                               ValueId excluded = ir::kNoValue) {
  const Shape s = c.shape(x);
  const size_t ax = static_cast<size_t>(axis);
  const ir::Attributes keep{{"axes", std::vector<int64_t>{axis}}, {"keepdims", int64_t{1}}};
  ir::Attributes extremeAttrs = keep, pickAttrs = keep;
  extremeAttrs["fn"] = std::string(max ? "max" : "min");
  pickAttrs["fn"] = std::string(last ? "max" : "min");
  DFC_TRY_ASSIGN(extreme, c.emit(OpKind::Reduce, {x}, extremeAttrs));
  DFC_TRY_ASSIGN(equal, c.binary("equal", x, extreme));
  ValueId at = equal;
  if (excluded != ir::kNoValue) {
    DFC_TRY_ASSIGN(open, c.unary("not", excluded));
    DFC_TRY_ASSIGN(both, c.binary("and", equal, open));
    at = both;
  }
  DFC_TRY_ASSIGN(positions, c.cast(indicesAlong(c, s[ax], s.size(), ax), DType::F32));
  // Elsewhere: a value the pick never chooses (past the end, or before the start).
  DFC_TRY_ASSIGN(candidates, c.emit(OpKind::Where, {at, positions, c.scalarF32(last ? -1.0f : static_cast<float>(s[ax]))}));
  return c.emit(OpKind::Reduce, {candidates}, pickAttrs);
}

MapFn argExtremeOp(bool max) {
  return [max](ImportContext& c) -> Status {
    DFC_TRY_ASSIGN(x, c.requireInput(0));
    DFC_TRY(needFloat(c, x));
    if (c.rank(x) == 0) return c.error("needs an input of rank >= 1");
    DFC_TRY_ASSIGN(axis, c.dimAxis(c.attrInt("axis", 0), c.rank(x)));
    if (c.shape(x)[static_cast<size_t>(axis)] > (int64_t{1} << 24))
      return c.error("axis longer than 2^24: indices are computed in float32");
    DFC_TRY_ASSIGN(index, extremeIndex(c, x, axis, max, c.attrInt("select_last_index", 0) != 0));
    DFC_TRY_ASSIGN(index64, c.cast(index, DType::I64));
    ValueId out = index64;
    if (c.attrInt("keepdims", 1) == 0) {
      Shape squeezed = c.shape(x);
      squeezed.erase(squeezed.begin() + axis);
      DFC_TRY_ASSIGN(r, c.reshape(index64, squeezed));
      out = r;
    }
    c.setOutput(0, out);
    return {};
  };
}

// TopK: K rounds of "pick the first extreme not yet taken" (ties go to the
// lower index, as ONNX asks), the taken ones masked to -inf (+inf for the
// smallest) so later rounds pass them by. Values come from x itself, exactly.
Status mapTopK(ImportContext& c) {
  constexpr int64_t kMaxK = 256;  // each round is a pass over x: a graph K passes long
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY(needFloat(c, x));
  const Shape s = c.shape(x);
  if (s.empty()) return c.error("needs an input of rank >= 1");
  DFC_TRY_ASSIGN(axis, c.dimAxis(c.attrInt("axis", -1), static_cast<int64_t>(s.size())));
  const size_t ax = static_cast<size_t>(axis);
  int64_t k = c.attrInt("k", -1);
  if (c.opset() >= 10) {
    DFC_TRY_ASSIGN(kIn, c.requireInput(1));
    DFC_TRY_ASSIGN(ks, c.constInts(kIn, "K"));
    if (ks.size() != 1) return c.error("K must hold one value");
    k = ks[0];
  }
  if (k < 0 || k > s[ax]) return c.error("K = " + std::to_string(k) + " is outside [0, " + std::to_string(s[ax]) + "]");
  if (k > kMaxK) return c.error("K = " + std::to_string(k) + " is more than the " + std::to_string(kMaxK) + " supported");
  if (k == 0 || s[ax] > (int64_t{1} << 24)) return c.error("K = 0, or an axis longer than 2^24, is not supported");
  const bool largest = c.attrInt("largest", 1) != 0;
  DFC_TRY_ASSIGN(positions, c.cast(indicesAlong(c, s[ax], s.size(), ax), DType::F32));
  const ir::Attributes sumAlong{{"fn", std::string("sum")}, {"axes", std::vector<int64_t>{axis}}, {"keepdims", int64_t{1}}};
  const ValueId fence = c.scalarF32(largest ? -INFINITY : INFINITY);
  ValueId rest = x, taken = ir::kNoValue;
  std::vector<ValueId> values, indices;
  for (int64_t round = 0; round < k; ++round) {
    DFC_TRY_ASSIGN(index, extremeIndex(c, rest, axis, largest, false, taken));
    DFC_TRY_ASSIGN(hit, c.binary("equal", positions, index));
    DFC_TRY_ASSIGN(picked, c.emit(OpKind::Where, {hit, x, c.scalarF32(0.0f)}));
    DFC_TRY_ASSIGN(value, c.emit(OpKind::Reduce, {picked}, sumAlong));
    values.push_back(value);
    indices.push_back(index);
    if (round + 1 == k) break;
    DFC_TRY_ASSIGN(masked, c.emit(OpKind::Where, {hit, fence, rest}));
    rest = masked;
    if (taken == ir::kNoValue) {
      taken = hit;
    } else {
      DFC_TRY_ASSIGN(either, c.binary("or", taken, hit));
      taken = either;
    }
  }
  auto join = [&](const std::vector<ValueId>& parts) -> Expected<ValueId> {
    if (parts.size() == 1) return parts[0];
    return c.emit(OpKind::Concat, parts, {{"axis", axis}});
  };
  DFC_TRY_ASSIGN(topValues, join(values));
  DFC_TRY_ASSIGN(topIndices, join(indices));
  DFC_TRY_ASSIGN(topIndices64, c.cast(topIndices, DType::I64));
  c.setOutput(0, topValues);
  if (c.outputWanted(1)) c.setOutput(1, topIndices64);
  return {};
}

// Hardmax: 1 at the first max along the axis, 0 elsewhere. Before opset 13 the
// input is seen as 2-D, [product of dims before axis, product from axis on].
Status mapHardmax(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY(needFloat(c, x));
  const Shape s = c.shape(x);
  if (s.empty()) return c.error("needs an input of rank >= 1");
  const bool newStyle = c.opset() >= 13;
  DFC_TRY_ASSIGN(axis, c.dimAxis(c.attrInt("axis", newStyle ? -1 : 1), static_cast<int64_t>(s.size())));
  ValueId in = x;
  int64_t over = axis;
  if (!newStyle) {
    int64_t rows = 1, cols = 1;
    for (size_t d = 0; d < s.size(); ++d) (static_cast<int64_t>(d) < axis ? rows : cols) *= s[d];
    DFC_TRY_ASSIGN(flat, c.reshape(x, {rows, cols}));
    in = flat;
    over = 1;
  }
  const Shape is = c.shape(in);
  DFC_TRY_ASSIGN(index, extremeIndex(c, in, over, true, false));
  DFC_TRY_ASSIGN(positions, c.cast(indicesAlong(c, is[static_cast<size_t>(over)], is.size(), static_cast<size_t>(over)), DType::F32));
  DFC_TRY_ASSIGN(hit, c.binary("equal", positions, index));
  DFC_TRY_ASSIGN(y, c.cast(hit, DType::F32));
  ValueId out = y;
  if (!newStyle) {
    DFC_TRY_ASSIGN(r, c.reshape(y, s));
    out = r;
  }
  c.setOutput(0, out);
  return {};
}

}  // namespace

void registerPickOps(OpTable& t) {
  t["GatherElements"] = mapGatherElements;
  t["ArgMax"] = argExtremeOp(true);
  t["ArgMin"] = argExtremeOp(false);
  t["Hardmax"] = mapHardmax;
  t["TopK"] = mapTopK;
  t["NegativeLogLikelihoodLoss"] = mapNllLoss;
  t["SoftmaxCrossEntropyLoss"] = mapSoftmaxCrossEntropyLoss;
}

}  // namespace dfc::onnx
