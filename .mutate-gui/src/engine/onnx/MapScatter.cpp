// OneHot, ScatterElements, ScatterND and GatherND. The first three compare the
// index against 0..D-1 over a new axis (as MapPick.cpp does) and combine with
// where/sum/prod, so their gradients come from the ops they are made of; the
// price is an updates-by-D mask. GatherND turns its index tuples into row
// numbers for the IR's gather.
#include <numeric>

#include "onnx/ImportContext.h"

namespace dfc::onnx {
namespace {

using ir::DType;
using ir::OpKind;
using ir::Shape;
using ir::ValueId;

Expected<ValueId> reduceOver(ImportContext& c, const std::string& fn, ValueId x, int64_t axis) {
  return c.emit(OpKind::Reduce, {x}, {{"fn", fn}, {"axes", std::vector<int64_t>{axis}}, {"keepdims", int64_t{0}}});
}

// values[i] of a 1-D tensor as a scalar (constant or computed).
Expected<ValueId> element(ImportContext& c, ValueId values, int64_t i) {
  DFC_TRY_ASSIGN(one, c.emit(OpKind::StridedSlice, {values}, {{"starts", std::vector<int64_t>{i}},
                                                              {"ends", std::vector<int64_t>{i + 1}},
                                                              {"steps", std::vector<int64_t>{1}}}));
  return c.reshape(one, {});
}

// OneHot(indices, depth, values=[off, on]): a new axis of `depth` at `axis`.
Status mapOneHot(ImportContext& c) {
  DFC_TRY_ASSIGN(indices, c.requireInput(0));
  DFC_TRY_ASSIGN(depthIn, c.requireInput(1));
  DFC_TRY_ASSIGN(values, c.requireInput(2));
  DFC_TRY_ASSIGN(depths, c.constFloats(depthIn, "depth"));
  if (depths.size() != 1 || !(depths[0] >= 1) || depths[0] > 1e8) return c.error("depth must be one value in [1, 1e8]");
  const int64_t depth = static_cast<int64_t>(depths[0]);
  if (c.shape(values) != Shape{2}) return c.error("values must be [off_value, on_value]");
  if (c.type(indices).dtype == DType::F32) {  // non-integer indices: truncated, as ONNX casts them
    DFC_TRY_ASSIGN(i64, c.cast(indices, DType::I64));
    indices = i64;
  }
  DFC_TRY_ASSIGN(index, wrapNegativeIndices(c, indices, depth));
  const Shape is = c.shape(index);
  DFC_TRY_ASSIGN(axis, c.axis(c.attrInt("axis", -1), static_cast<int64_t>(is.size()) + 1));
  Shape withAxis = is;
  withAxis.insert(withAxis.begin() + axis, 1);
  DFC_TRY_ASSIGN(index1, c.reshape(index, withAxis));
  DFC_TRY(c.checkSize(ir::TensorType{c.type(values).dtype, [&] { Shape o = withAxis; o[static_cast<size_t>(axis)] = depth; return o; }()}, "output"));
  DFC_TRY_ASSIGN(hit, c.binary("equal", index1, indicesAlong(c, depth, withAxis.size(), static_cast<size_t>(axis))));
  DFC_TRY_ASSIGN(off, element(c, values, 0));
  DFC_TRY_ASSIGN(on, element(c, values, 1));
  DFC_TRY_ASSIGN(y, c.emit(OpKind::Where, {hit, on, off}));
  c.setOutput(0, y);
  return {};
}

// Index tuples (the last axis of `indices`, length m) into data of shape ds past
// b batch dims, as row numbers of data seen as [batch x rows, rest...];
// `rows` gets the rows per batch entry.
Expected<ValueId> rowOfTuples(ImportContext& c, ValueId indices, const Shape& ds, int64_t b, int64_t& rows) {
  const Shape is = c.shape(indices);
  const int64_t m = is.back();
  Shape lead(is.begin(), is.end() - 1);  // [batch..., tuples...]
  ValueId row = ir::kNoValue;
  rows = 1;
  for (int64_t i = m - 1; i >= 0; --i) {  // row = sum of index_i * stride_i
    const int64_t extent = ds[static_cast<size_t>(b + i)];
    std::vector<int64_t> starts(is.size(), 0), ends(is.begin(), is.end()), steps(is.size(), 1);
    starts.back() = i;
    ends.back() = i + 1;
    DFC_TRY_ASSIGN(part, c.emit(OpKind::StridedSlice, {indices}, {{"starts", starts}, {"ends", ends}, {"steps", steps}}));
    DFC_TRY_ASSIGN(partFlat, c.reshape(part, lead));
    DFC_TRY_ASSIGN(wrapped, wrapNegativeIndices(c, partFlat, extent));
    ir::Tensor stride(ir::TensorType{DType::I64, {}});
    stride.data<int64_t>()[0] = rows;
    DFC_TRY_ASSIGN(scaled, c.binary("mul", wrapped, c.constant(std::move(stride), "stride")));
    if (row == ir::kNoValue) row = scaled;
    else {
      DFC_TRY_ASSIGN(sum, c.binary("add", row, scaled));
      row = sum;
    }
    rows *= extent;
  }
  if (b > 0) {  // rows of batch k start at k * rows
    Shape batchShape(lead.size(), 1);
    int64_t batch = 1;
    for (int64_t d = 0; d < b; ++d) batch *= (batchShape[static_cast<size_t>(d)] = ds[static_cast<size_t>(d)]);
    ir::Tensor offsets(ir::TensorType{DType::I64, batchShape});
    for (int64_t k = 0; k < batch; ++k) offsets.data<int64_t>()[k] = k * rows;
    DFC_TRY_ASSIGN(shifted, c.binary("add", row, c.constant(std::move(offsets), "batch_offset")));
    row = shifted;
  }
  return row;
}

// Combines what lands on each target position with `data`: `hit` says which
// source (along axis `over`) lands where, `sources` holds the values, summed
// (add, none) or multiplied (mul) over `over`; none keeps data where nothing landed.
Expected<ValueId> combineLanded(ImportContext& c, ValueId data, ValueId hit, ValueId sources,
                                const std::string& reduction, int64_t over) {
  if (reduction == "mul") {
    DFC_TRY_ASSIGN(factors, c.emit(OpKind::Where, {hit, sources, c.scalarF32(1.0f)}));
    DFC_TRY_ASSIGN(product, reduceOver(c, "prod", factors, over));
    return c.binary("mul", data, product);
  }
  DFC_TRY_ASSIGN(landed, c.emit(OpKind::Where, {hit, sources, c.scalarF32(0.0f)}));
  DFC_TRY_ASSIGN(sum, reduceOver(c, "sum", landed, over));
  if (reduction == "add") return c.binary("add", data, sum);
  DFC_TRY_ASSIGN(hitF, c.cast(hit, DType::F32));
  DFC_TRY_ASSIGN(hits, reduceOver(c, "sum", hitF, over));
  DFC_TRY_ASSIGN(touched, c.binary("greater", hits, c.scalarF32(0.0f)));
  return c.emit(OpKind::Where, {touched, sum, data});
}

Expected<std::string> scatterReduction(ImportContext& c) {
  std::string reduction = c.attrString("reduction", "none");
  if (reduction != "none" && reduction != "add" && reduction != "mul")
    return c.error("reduction '" + reduction + "' is not supported (none, add, mul)");
  return reduction;
}

// ScatterElements(data, indices, updates, axis, reduction none|add|mul): the
// updates landing on each position along the axis are summed (or multiplied);
// positions no update hits keep data.
Status mapScatterElements(ImportContext& c) {
  DFC_TRY_ASSIGN(data, c.requireInput(0));
  DFC_TRY_ASSIGN(indices, c.requireInput(1));
  DFC_TRY_ASSIGN(updates, c.requireInput(2));
  DFC_TRY(needFloat(c, data));
  DFC_TRY(needFloat(c, updates));
  const Shape ds = c.shape(data), us = c.shape(updates);
  if (ds.empty() || c.shape(indices) != us || us.size() != ds.size())
    return c.error("indices and updates need one shape, of data's rank >= 1");
  DFC_TRY_ASSIGN(axis, c.dimAxis(c.attrInt("axis", 0), static_cast<int64_t>(ds.size())));
  const size_t ax = static_cast<size_t>(axis);
  for (size_t d = 0; d < ds.size(); ++d)
    if (d != ax && us[d] != ds[d]) return c.error("updates smaller than data off the scatter axis are not supported");
  DFC_TRY_ASSIGN(reduction, scatterReduction(c));
  DFC_TRY_ASSIGN(index, wrapNegativeIndices(c, indices, ds[ax]));
  Shape sourceShape = us;  // [.., K, 1, ..]: each update against each target position
  sourceShape.insert(sourceShape.begin() + axis + 1, 1);
  DFC_TRY_ASSIGN(index1, c.reshape(index, sourceShape));
  DFC_TRY_ASSIGN(updates1, c.reshape(updates, sourceShape));
  DFC_TRY_ASSIGN(hit, c.binary("equal", index1, indicesAlong(c, ds[ax], sourceShape.size(), ax + 1)));
  DFC_TRY_ASSIGN(y, combineLanded(c, data, hit, updates1, reduction, axis));
  c.setOutput(0, y);
  return {};
}

// ScatterND(data, indices[..., m], updates, reduction none|add|mul): each m-tuple
// names a slice of data that its update replaces (or is added/multiplied into).
Status mapScatterND(ImportContext& c) {
  DFC_TRY_ASSIGN(data, c.requireInput(0));
  DFC_TRY_ASSIGN(indices, c.requireInput(1));
  DFC_TRY_ASSIGN(updates, c.requireInput(2));
  DFC_TRY(needFloat(c, data));
  DFC_TRY(needFloat(c, updates));
  const Shape ds = c.shape(data), is = c.shape(indices);
  if (is.empty() || is.back() < 1 || static_cast<size_t>(is.back()) > ds.size())
    return c.error("index tuples must be 1..rank(data) long");
  DFC_TRY_ASSIGN(reduction, scatterReduction(c));
  int64_t rows = 0;
  DFC_TRY_ASSIGN(row, rowOfTuples(c, indices, ds, 0, rows));
  const Shape rest(ds.begin() + is.back(), ds.end());
  int64_t k = 1;
  for (size_t d = 0; d + 1 < is.size(); ++d) k *= is[d];
  Shape expected(is.begin(), is.end() - 1);
  expected.insert(expected.end(), rest.begin(), rest.end());
  if (c.shape(updates) != expected) return c.error("updates must be indices.shape[:-1] + data.shape[m:]");
  Shape table{rows};
  table.insert(table.end(), rest.begin(), rest.end());
  Shape rowShape(table.size() + 1, 1), sourceShape{k, 1};
  rowShape[0] = k;
  sourceShape.insert(sourceShape.end(), rest.begin(), rest.end());
  DFC_TRY(c.checkSize(ir::TensorType{DType::F32, [&] { Shape o = sourceShape; o[1] = rows; return o; }()}, "scatter mask"));
  DFC_TRY_ASSIGN(flat, c.reshape(data, table));
  DFC_TRY_ASSIGN(row1, c.reshape(row, rowShape));
  DFC_TRY_ASSIGN(sources, c.reshape(updates, sourceShape));
  DFC_TRY_ASSIGN(hit, c.binary("equal", row1, indicesAlong(c, rows, rowShape.size(), 1)));
  DFC_TRY_ASSIGN(combined, combineLanded(c, flat, hit, sources, reduction, 0));
  DFC_TRY_ASSIGN(y, c.reshape(combined, ds));
  c.setOutput(0, y);
  return {};
}

// GatherND(data, indices[..., m], batch_dims b): each m-tuple addresses a slice
// of data past its batch dims. The tuples become row numbers of data seen as
// [batch x rows, rest...], then one gather.
Status mapGatherND(ImportContext& c) {
  DFC_TRY_ASSIGN(data, c.requireInput(0));
  DFC_TRY_ASSIGN(indices, c.requireInput(1));
  const Shape ds = c.shape(data), is = c.shape(indices);
  const int64_t b = c.attrInt("batch_dims", 0);
  if (is.empty() || b < 0 || static_cast<size_t>(b) >= is.size() || static_cast<size_t>(b) >= ds.size())
    return c.error("batch_dims must be below the ranks of data and indices");
  const int64_t m = is.back();
  if (m < 1 || static_cast<size_t>(b + m) > ds.size()) return c.error("index tuples longer than data's rank");
  for (int64_t d = 0; d < b; ++d)
    if (is[static_cast<size_t>(d)] != ds[static_cast<size_t>(d)]) return c.error("batch dims of data and indices differ");
  int64_t rows = 0;
  DFC_TRY_ASSIGN(row, rowOfTuples(c, indices, ds, b, rows));
  int64_t batch = 1;
  for (int64_t d = 0; d < b; ++d) batch *= ds[static_cast<size_t>(d)];
  Shape table{batch * rows};
  table.insert(table.end(), ds.begin() + b + m, ds.end());
  DFC_TRY_ASSIGN(flat, c.reshape(data, table));
  DFC_TRY_ASSIGN(y, c.emit(OpKind::Gather, {flat, row}, {{"axis", int64_t{0}}}));
  c.setOutput(0, y);
  return {};
}

// MaxUnpool's shape from its window: each spatial axis (in - 1) * stride + kernel - pads.
Expected<Shape> unpoolShape(ImportContext& c, const Shape& xs) {
  const size_t spatial = xs.size() - 2;
  auto kernel = c.attrInts("kernel_shape"), strides = c.attrInts("strides"), pads = c.attrInts("pads");
  if (strides.empty()) strides.assign(spatial, 1);
  if (pads.empty()) pads.assign(2 * spatial, 0);
  if (kernel.size() != spatial || strides.size() != spatial || pads.size() != 2 * spatial)
    return c.error("kernel_shape, strides and pads need one entry per spatial axis (pads two)");
  Shape out = xs;
  for (size_t d = 0; d < spatial; ++d)
    out[2 + d] = (xs[2 + d] - 1) * strides[d] + kernel[d] - pads[d] - pads[spatial + d];
  return out;
}

// y padded with zeros at the end of each axis up to output_shape (when given:
// the indices still count positions in the window's shape).
Expected<ValueId> padToOutputShape(ImportContext& c, ValueId y) {
  ValueId o = c.input(2);
  if (o == ir::kNoValue) return y;
  DFC_TRY_ASSIGN(want, c.constInts(o, "output_shape"));
  const Shape ys = c.shape(y);
  if (want.size() != ys.size()) return c.error("output_shape must have the input's rank");
  for (size_t d = 0; d < ys.size(); ++d) {
    const Shape cur = c.shape(y);
    if (want[d] < cur[d]) return c.error("output_shape is smaller than the unpooled " + c.type(y).toString());
    if (want[d] == cur[d]) continue;
    Shape block = cur;
    block[d] = want[d] - cur[d];
    ir::Tensor zeros(ir::TensorType{DType::F32, block});
    for (float& z : zeros.span<float>()) z = 0;
    DFC_TRY_ASSIGN(padded, c.emit(OpKind::Concat, {y, c.constant(std::move(zeros), "unpool_pad")},
                                  {{"axis", static_cast<int64_t>(d)}}));
    y = padded;
  }
  return y;
}

// MaxUnpool(X, I, output_shape): zeros of the window's output shape holding
// each value of X at the flat position I gives it (MaxPool's Indices): X times
// the one-hot rows of I, one product.
Status mapMaxUnpool(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY_ASSIGN(indices, c.requireInput(1));
  DFC_TRY(needFloat(c, x));
  const Shape xs = c.shape(x);
  if (xs.size() < 3 || c.shape(indices) != xs) return c.error("needs X [N, C, ...] and indices of X's shape");
  DFC_TRY_ASSIGN(out, unpoolShape(c, xs));
  const int64_t k = c.type(x).numElements(), t = ir::TensorType{DType::F32, out}.numElements();
  if (t < 1) return c.error("the output would be empty");
  DFC_TRY(c.checkSize(ir::TensorType{DType::F32, {k, t}}, "one-hot rows"));
  DFC_TRY_ASSIGN(index, wrapNegativeIndices(c, indices, t));
  DFC_TRY_ASSIGN(column, c.reshape(index, {k, 1}));
  DFC_TRY_ASSIGN(hit, c.binary("equal", column, indicesAlong(c, t, 2, 1)));
  DFC_TRY_ASSIGN(oneHot, c.cast(hit, DType::F32));
  DFC_TRY_ASSIGN(row, c.reshape(x, {1, k}));
  DFC_TRY_ASSIGN(placed, onnxMatMul(c, row, oneHot));
  DFC_TRY_ASSIGN(unpooled, c.reshape(placed, out));
  DFC_TRY_ASSIGN(y, padToOutputShape(c, unpooled));
  c.setOutput(0, y);
  return {};
}

}  // namespace

void registerScatterOps(OpTable& t) {
  t["OneHot"] = mapOneHot;
  t["ScatterElements"] = mapScatterElements;
  t["Scatter"] = mapScatterElements;  // deprecated in opset 11: the same op under its first name
  t["GatherND"] = mapGatherND;
  t["ScatterND"] = mapScatterND;
  t["MaxUnpool"] = mapMaxUnpool;
}

}  // namespace dfc::onnx
