#include "onnx/ControlFlow.h"

#include <algorithm>
#include <optional>

namespace dfc::onnx {

using ir::DType;
using ir::OpKind;
using ir::ValueId;

namespace {

const ::onnx::GraphProto* graphAttr(const ImportContext& c, const std::string& name) {
  const auto* a = c.attr(name);
  return a && a->has_g() ? &a->g() : nullptr;
}

// A constant boolean (or number) scalar's truth; nullopt when not constant.
std::optional<bool> constTruth(const ImportContext& c, ValueId v) {
  if (ImportContext::isListToken(v)) return std::nullopt;
  const ir::Tensor* t = c.constData(v);
  if (!t || t->numElements() != 1) return std::nullopt;
  switch (t->dtype()) {
    case DType::Bool: return t->data<bool>()[0];
    case DType::F32: return t->data<float>()[0] != 0;
    case DType::I64: return t->data<int64_t>()[0] != 0;
    case DType::I32: return t->data<int32_t>()[0] != 0;
  }
  return std::nullopt;
}

// A sequence or optional out of both branches: Where picks each element, so
// the two must hold as many elements (and be alike), each of one type.
Expected<ValueId> selectLists(ImportContext& c, ValueId cond, ValueId thenList, ValueId elseList, size_t k) {
  const auto refuse = [&](const std::string& why) {
    return c.error("the condition is computed at run time and output " + std::to_string(k) +
                   " is a sequence or optional " + why + " (only a constant condition picks one)");
  };
  if (!ImportContext::isListToken(thenList) || !ImportContext::isListToken(elseList))
    return refuse("in one branch and a tensor in the other");
  const ListValue a = c.tokenList(thenList), b = c.tokenList(elseList);
  if (a.optional != b.optional || a.present != b.present || a.sequence != b.sequence ||
      a.items.size() != b.items.size())
    return refuse("of " + std::to_string(a.items.size()) + " elements in then_branch and " +
                  std::to_string(b.items.size()) + " in else_branch, or of other kinds");
  ListValue out = a;
  for (size_t i = 0; i < a.items.size(); ++i) {
    if (c.type(a.items[i]) != c.type(b.items[i]))
      return refuse("whose element " + std::to_string(i) + " is " + c.type(a.items[i]).toString() +
                    " in then_branch and " + c.type(b.items[i]).toString() + " in else_branch");
    DFC_TRY_ASSIGN(y, c.emit(OpKind::Where, {cond, a.items[i], b.items[i]}));
    out.items[i] = y;
  }
  return c.listToken(std::move(out));
}

// Both branches, each output chosen by the condition.
Status selectBranches(ImportContext& c, ValueId cond, const std::vector<ValueId>& thenOut,
                      const std::vector<ValueId>& elseOut) {
  if (thenOut.size() != elseOut.size())
    return c.error("then_branch gives " + std::to_string(thenOut.size()) + " outputs, else_branch " +
                   std::to_string(elseOut.size()));
  if (c.type(cond).numElements() != 1) return c.error("the condition must hold one value");
  if (c.rank(cond) != 0) {
    DFC_TRY_ASSIGN(scalar, c.reshape(cond, {}));
    cond = scalar;
  }
  for (size_t k = 0; k < thenOut.size(); ++k) {
    if (ImportContext::isListToken(thenOut[k]) || ImportContext::isListToken(elseOut[k])) {
      DFC_TRY_ASSIGN(list, selectLists(c, cond, thenOut[k], elseOut[k], k));
      c.setOutput(static_cast<int>(k), list);
      continue;
    }
    const ir::TensorType a = c.type(thenOut[k]), b = c.type(elseOut[k]);
    if (a != b)
      return c.error("the condition is computed at run time, so both branches run and Where picks each output; output " +
                     std::to_string(k) + " is " + a.toString() + " in then_branch and " + b.toString() +
                     " in else_branch (they must agree)");
    DFC_TRY_ASSIGN(y, c.emit(OpKind::Where, {cond, thenOut[k], elseOut[k]}));
    c.setOutput(static_cast<int>(k), y);
  }
  return {};
}

}  // namespace

Status mapIf(ImportContext& c, const MapBody& mapBody) {
  DFC_TRY_ASSIGN(cond, c.requireInput(0));
  const auto *thenBody = graphAttr(c, "then_branch"), *elseBody = graphAttr(c, "else_branch");
  if (!thenBody || !elseBody) return c.error("needs then_branch and else_branch graphs");
  const ::onnx::NodeProto& node = c.node();
  const std::string prefix = sanitizeName(node.name().empty() ? node.op_type() : node.name());
  if (auto taken = constTruth(c, cond)) {
    DFC_TRY_ASSIGN(out, mapBody(*taken ? *thenBody : *elseBody, prefix + (*taken ? "/then/" : "/else/"), {}));
    for (size_t k = 0; k < out.size(); ++k) c.setOutput(static_cast<int>(k), out[k]);
    return {};
  }
  DFC_TRY_ASSIGN(thenOut, mapBody(*thenBody, prefix + "/then/", {}));
  DFC_TRY_ASSIGN(elseOut, mapBody(*elseBody, prefix + "/else/", {}));
  return selectBranches(c, cond, thenOut, elseOut);
}

namespace {

// Per k, the values scans[t][k] of every iteration t stacked along a new axis
// (axes[k], default 0), in reverse iteration order where reverse[k] is set.
Expected<std::vector<ValueId>> stackScans(ImportContext& c, const std::vector<std::vector<ValueId>>& scans,
                                          const std::vector<int64_t>& axes = {},
                                          const std::vector<int64_t>& reverse = {}) {
  std::vector<ValueId> out;
  if (scans.empty()) return out;
  for (size_t k = 0; k < scans.front().size(); ++k) {
    const int64_t rank = c.rank(scans.front()[k]) + 1;
    DFC_TRY_ASSIGN(axis, c.axis(k < axes.size() ? axes[k] : 0, rank));
    std::vector<ValueId> parts;
    for (const auto& iteration : scans) {
      ir::Shape s = c.shape(iteration[k]);
      s.insert(s.begin() + axis, 1);
      DFC_TRY_ASSIGN(part, c.reshape(iteration[k], s));
      parts.push_back(part);
    }
    if (k < reverse.size() && reverse[k] != 0) std::reverse(parts.begin(), parts.end());
    DFC_TRY_ASSIGN(stacked, parts.size() == 1 ? c.unary("identity", parts[0])
                                              : c.emit(OpKind::Concat, parts, {{"axis", axis}}));
    out.push_back(stacked);
  }
  return out;
}

// The stacked scan outputs become the node's outputs from firstOutput on.
Status stackScanOutputs(ImportContext& c, const std::vector<std::vector<ValueId>>& scans, size_t firstOutput,
                        const std::vector<int64_t>& axes = {}, const std::vector<int64_t>& reverse = {}) {
  DFC_TRY_ASSIGN(stacked, stackScans(c, scans, axes, reverse));
  for (size_t k = 0; k < stacked.size(); ++k) c.setOutput(static_cast<int>(firstOutput + k), stacked[k]);
  return {};
}

// Slice t of x along axis, that axis dropped.
Expected<ValueId> sliceAt(ImportContext& c, ValueId x, int64_t axis, int64_t t) {
  DFC_TRY_ASSIGN(s, c.emit(OpKind::Slice, {x}, {{"axis", axis}, {"start", t}, {"end", t + 1}}));
  ir::Shape shape = c.shape(s);
  shape.erase(shape.begin() + axis);
  return c.reshape(s, shape);
}

struct ScanInputs {
  std::vector<ValueId> states, scans;
  std::vector<int64_t> axes;      // per scan input, normalized
  std::vector<bool> reversed;     // per scan input
  int64_t length = 0;             // iterations
};

Expected<ScanInputs> scanInputs(ImportContext& c) {
  const int64_t m = c.attrInt("num_scan_inputs", -1);
  if (m < 1 || m > c.numInputs()) return c.error("num_scan_inputs must be in 1.." + std::to_string(c.numInputs()));
  ScanInputs in;
  const int64_t n = c.numInputs() - m;
  const auto axes = c.attrInts("scan_input_axes"), dirs = c.attrInts("scan_input_directions");
  for (int64_t k = 0; k < c.numInputs(); ++k) {
    DFC_TRY_ASSIGN(v, c.requireInput(static_cast<int>(k)));
    if (k < n) {
      in.states.push_back(v);
      continue;
    }
    const size_t j = static_cast<size_t>(k - n);
    DFC_TRY_ASSIGN(axis, c.dimAxis(j < axes.size() ? axes[j] : 0, c.rank(v)));
    const int64_t len = c.shape(v)[static_cast<size_t>(axis)];
    if (j > 0 && len != in.length) return c.error("scan inputs differ in length along their scan axes");
    in.length = len;
    in.scans.push_back(v);
    in.axes.push_back(axis);
    in.reversed.push_back(j < dirs.size() && dirs[j] != 0);
  }
  return in;
}

// The body mapped once per step of `in` (the steps named under `prefix`):
// leaves the final states in `state` and each step's scan outputs in `scans`.
Status unrollScan(ImportContext& c, const MapBody& mapBody, const ::onnx::GraphProto& body, const ScanInputs& in,
                  const std::string& prefix, std::vector<ValueId>& state, std::vector<std::vector<ValueId>>& scans) {
  if (in.length > kMaxUnrolledIterations)
    return c.error("a scan of " + std::to_string(in.length) + " steps is longer than the " +
                   std::to_string(kMaxUnrolledIterations) + " unrolled");
  const size_t n = in.states.size();
  if (static_cast<size_t>(body.output_size()) < n)
    return c.error("body gives fewer outputs than the scan carries states");
  if (in.length == 0 && static_cast<size_t>(body.output_size()) > n)
    return c.error("no step runs: its scan outputs would be empty");
  state = in.states;
  for (int64_t t = 0; t < in.length; ++t) {
    std::vector<ValueId> args = state;
    for (size_t j = 0; j < in.scans.size(); ++j) {
      DFC_TRY_ASSIGN(slice, sliceAt(c, in.scans[j], in.axes[j], in.reversed[j] ? in.length - 1 - t : t));
      args.push_back(slice);
    }
    DFC_TRY_ASSIGN(out, mapBody(body, prefix + "/step" + std::to_string(t) + "/", args));
    if (std::any_of(out.begin(), out.end(), ImportContext::isListToken))
      return c.error("its body gives a sequence or optional (not supported)");
    state.assign(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n));
    scans.emplace_back(out.begin() + static_cast<std::ptrdiff_t>(n), out.end());
  }
  return {};
}

// Scan-8's inputs for batch entry b: (sequence_lens, states..., scans...), every
// one with the batch axis 0 (dropped here); the scan axis is then 0.
Expected<ScanInputs> scan8Inputs(ImportContext& c, int64_t b) {
  const int64_t m = c.attrInt("num_scan_inputs", -1);
  if (m < 1 || m > c.numInputs() - 1)
    return c.error("num_scan_inputs must be in 1.." + std::to_string(c.numInputs() - 1));
  const auto dirs = c.attrInts("directions");
  ScanInputs in;
  for (int k = 1; k < c.numInputs(); ++k) {
    DFC_TRY_ASSIGN(v, c.requireInput(k));
    if (c.rank(v) < 1 || c.shape(v)[0] <= b) return c.error("input " + std::to_string(k) + " lacks the batch axis");
    DFC_TRY_ASSIGN(entry, sliceAt(c, v, 0, b));
    if (k < c.numInputs() - m) {
      in.states.push_back(entry);
      continue;
    }
    const size_t j = in.scans.size();
    if (c.rank(entry) < 1) return c.error("scan input " + std::to_string(j) + " lacks the sequence axis");
    if (j > 0 && c.shape(entry)[0] != in.length) return c.error("scan inputs differ in sequence length");
    in.length = c.shape(entry)[0];
    in.scans.push_back(entry);
    in.axes.push_back(0);
    in.reversed.push_back(j < dirs.size() && dirs[j] != 0);
  }
  return in;
}

// Values per batch entry stacked back along a new batch axis 0.
Expected<ValueId> stackBatch(ImportContext& c, const std::vector<ValueId>& entries) {
  std::vector<std::vector<ValueId>> rows;
  for (ValueId v : entries) rows.push_back({v});
  DFC_TRY_ASSIGN(stacked, stackScans(c, rows));
  return stacked.front();
}

// Scan-8: each batch entry scanned as Scan-9 scans, the results stacked along
// the batch axis. sequence_lens, when given, must be constant and full length.
Status mapScan8(ImportContext& c, const MapBody& mapBody, const ::onnx::GraphProto& body) {
  DFC_TRY_ASSIGN(first, c.requireInput(c.numInputs() - 1));
  const int64_t batch = c.rank(first) > 0 ? c.shape(first)[0] : 0;
  std::vector<std::vector<ValueId>> states, scanOuts;  // [output][batch entry]
  const std::string prefix = sanitizeName(c.node().name().empty() ? "Scan" : c.node().name());
  for (int64_t b = 0; b < batch; ++b) {
    DFC_TRY_ASSIGN(in, scan8Inputs(c, b));
    if (ValueId lens = c.input(0); lens != ir::kNoValue) {
      DFC_TRY_ASSIGN(ls, c.constInts(lens, "sequence_lens"));
      if (static_cast<int64_t>(ls.size()) != batch || ls[static_cast<size_t>(b)] != in.length)
        return c.error("sequence_lens shorter than the sequence axis are not supported");
    }
    std::vector<ValueId> state;
    std::vector<std::vector<ValueId>> scans;
    DFC_TRY(unrollScan(c, mapBody, body, in, prefix + "/batch" + std::to_string(b), state, scans));
    DFC_TRY_ASSIGN(stacked, stackScans(c, scans));
    states.resize(state.size());
    scanOuts.resize(stacked.size());
    for (size_t k = 0; k < state.size(); ++k) states[k].push_back(state[k]);
    for (size_t k = 0; k < stacked.size(); ++k) scanOuts[k].push_back(stacked[k]);
  }
  int output = 0;
  for (const auto* group : {&states, &scanOuts})
    for (const auto& entries : *group) {
      DFC_TRY_ASSIGN(v, stackBatch(c, entries));
      c.setOutput(output++, v);
    }
  return {};
}

}  // namespace

// Scan unrolled over its scan axis (opset 8's batched form: mapScan8).
Status mapScan(ImportContext& c, const MapBody& mapBody) {
  const auto* body = graphAttr(c, "body");
  if (!body) return c.error("needs a body graph");
  if (c.opset() < 9) return mapScan8(c, mapBody, *body);
  DFC_TRY_ASSIGN(in, scanInputs(c));
  std::vector<ValueId> state;
  std::vector<std::vector<ValueId>> scans;
  const std::string prefix = sanitizeName(c.node().name().empty() ? "Scan" : c.node().name());
  DFC_TRY(unrollScan(c, mapBody, *body, in, prefix, state, scans));
  for (size_t k = 0; k < state.size(); ++k) c.setOutput(static_cast<int>(k), state[k]);
  return stackScanOutputs(c, scans, state.size(), c.attrInts("scan_output_axes"), c.attrInts("scan_output_directions"));
}

Status mapLoop(ImportContext& c, const MapBody& mapBody) {
  const auto* body = graphAttr(c, "body");
  if (!body) return c.error("needs a body graph");
  int64_t trips = kMaxUnrolledIterations + 1;
  if (ValueId m = c.input(0); m != ir::kNoValue) {
    DFC_TRY_ASSIGN(ms, c.constInts(m, "the trip count M"));
    if (ms.size() != 1) return c.error("the trip count M must hold one value");
    trips = ms[0];
  }
  std::optional<bool> running = true;
  if (ValueId cond = c.input(1); cond != ir::kNoValue) running = constTruth(c, cond);
  if (!running) return c.error("the loop condition is computed at run time (only loops of a constant trip count unroll)");
  const int carried = c.numInputs() - 2;
  if (carried < 0 || body->input_size() != carried + 2 || body->output_size() < carried + 1)
    return c.error("body takes " + std::to_string(body->input_size()) + " inputs and gives " +
                   std::to_string(body->output_size()) + " outputs for " + std::to_string(std::max(carried, 0)) +
                   " loop-carried values");
  std::vector<ValueId> state;
  for (int k = 0; k < carried; ++k) {
    const ValueId v = c.carriedInput(2 + k);  // a sequence or optional travels as a token
    if (v == ir::kNoValue) return c.error("input " + std::to_string(2 + k) + " is missing");
    state.push_back(v);
  }
  const std::string prefix = sanitizeName(c.node().name().empty() ? "Loop" : c.node().name());
  std::vector<std::vector<ValueId>> scans;
  int64_t i = 0;
  for (; i < trips && *running; ++i) {
    if (i == kMaxUnrolledIterations)
      return c.error("more than " + std::to_string(kMaxUnrolledIterations) +
                     " iterations (the trip count is absent or larger): too long to unroll");
    ir::Tensor iter(ir::TensorType{DType::I64, {}});
    iter.data<int64_t>()[0] = i;
    ir::Tensor cond(ir::TensorType{DType::Bool, {}});
    cond.data<bool>()[0] = true;
    std::vector<ValueId> in = {c.constant(std::move(iter), "iter"), c.constant(std::move(cond), "cond")};
    in.insert(in.end(), state.begin(), state.end());
    DFC_TRY_ASSIGN(out, mapBody(*body, prefix + "/iter" + std::to_string(i) + "/", in));
    running = constTruth(c, out[0]);
    if (!running)
      return c.error("the body's condition output is computed at run time (only loops of a constant trip count unroll)");
    state.assign(out.begin() + 1, out.begin() + 1 + carried);
    scans.emplace_back(out.begin() + 1 + carried, out.end());
    if (std::any_of(scans.back().begin(), scans.back().end(), ImportContext::isListToken))
      return c.error("a scan output is a sequence or optional (not supported)");
  }
  for (int k = 0; k < carried; ++k) c.setOutput(k, state[static_cast<size_t>(k)]);
  if (scans.empty() && body->output_size() > carried + 1) return c.error("no iteration runs: its scan outputs would be empty");
  return stackScanOutputs(c, scans, static_cast<size_t>(carried));
}

}  // namespace dfc::onnx
