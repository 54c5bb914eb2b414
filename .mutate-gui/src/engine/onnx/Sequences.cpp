#include "onnx/Sequences.h"

#include <algorithm>
#include <set>

namespace dfc::onnx {
namespace {

using ir::DType;
using ir::ValueId;

constexpr int64_t kMaxSequenceLength = 4096;  // each element is a value of its own

Expected<const ListValue*> requireList(ImportContext& c, int i, bool wantSequence) {
  const ListValue* l = c.list(i);
  if (!l || l->optional == wantSequence || (wantSequence && !l->sequence))
    return c.error("input " + std::to_string(i) + " must be " + (wantSequence ? "a sequence" : "an optional"));
  return l;
}

// A constant position in [-n, n - 1] (or [-n, n] when `end` is allowed), made non-negative.
Expected<int64_t> position(ImportContext& c, int input, int64_t n, bool endAllowed, int64_t fallback) {
  const ValueId v = c.input(input);
  if (v == ir::kNoValue) return fallback;
  DFC_TRY_ASSIGN(p, c.constInts(v, "position"));
  if (p.size() != 1) return c.error("position must hold one value");
  const int64_t at = p[0] < 0 ? p[0] + n : p[0];
  if (at < 0 || at > (endAllowed ? n : n - 1))
    return c.error("position " + std::to_string(p[0]) + " is outside a sequence of " + std::to_string(n));
  return at;
}

ValueId int64Scalar(ImportContext& c, int64_t v) {
  ir::Tensor t(ir::TensorType{DType::I64, {}});
  t.data<int64_t>()[0] = v;
  return c.constant(std::move(t), "length");
}

Status mapSequenceConstruct(ImportContext& c) {
  ListValue out;
  for (int i = 0; i < c.numInputs(); ++i) {
    DFC_TRY_ASSIGN(v, c.requireInput(i));
    out.items.push_back(v);
  }
  c.setListOutput(0, std::move(out));
  return {};
}

Status mapSequenceInsertOrErase(ImportContext& c, bool insert) {
  DFC_TRY_ASSIGN(seq, requireList(c, 0, true));
  ListValue out = *seq;
  const auto n = static_cast<int64_t>(out.items.size());
  if (insert) {
    DFC_TRY_ASSIGN(v, c.requireInput(1));
    if (n >= kMaxSequenceLength)
      return c.error("sequences longer than " + std::to_string(kMaxSequenceLength) + " are not supported");
    DFC_TRY_ASSIGN(at, position(c, 2, n, true, n));
    out.items.insert(out.items.begin() + at, v);
  } else {
    if (n == 0) return c.error("the sequence is empty");
    DFC_TRY_ASSIGN(at, position(c, 1, n, false, n - 1));
    out.items.erase(out.items.begin() + at);
  }
  c.setListOutput(0, std::move(out));
  return {};
}

Status mapSequenceAt(ImportContext& c) {
  DFC_TRY_ASSIGN(seq, requireList(c, 0, true));
  if (c.input(1) == ir::kNoValue) return c.error("needs a position");
  DFC_TRY_ASSIGN(at, position(c, 1, static_cast<int64_t>(seq->items.size()), false, 0));
  c.setOutput(0, seq->items[static_cast<size_t>(at)]);
  return {};
}

Status mapConcatFromSequence(ImportContext& c) {
  DFC_TRY_ASSIGN(seq, requireList(c, 0, true));
  if (seq->items.empty()) return c.error("the sequence is empty");
  const bool newAxis = c.attrInt("new_axis", 0) != 0;
  const int64_t rank = c.rank(seq->items[0]) + (newAxis ? 1 : 0);
  DFC_TRY_ASSIGN(axis, c.axis(c.attrInt("axis", 0), rank));
  std::vector<ValueId> parts;
  for (ValueId v : seq->items) {
    if (!newAxis) {
      parts.push_back(v);
      continue;
    }
    ir::Shape s = c.shape(v);
    s.insert(s.begin() + axis, 1);
    DFC_TRY_ASSIGN(r, c.reshape(v, s));
    parts.push_back(r);
  }
  if (parts.size() == 1) {
    c.setOutput(0, parts[0]);
    return {};
  }
  DFC_TRY_ASSIGN(y, c.emit(ir::OpKind::Concat, parts, {{"axis", axis}}));
  c.setOutput(0, y);
  return {};
}

Status mapSplitToSequence(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY_ASSIGN(axis, c.dimAxis(c.attrInt("axis", 0), c.rank(x)));
  const int64_t extent = c.shape(x)[static_cast<size_t>(axis)];
  std::vector<int64_t> sizes;
  bool squeeze = false;
  if (c.input(1) == ir::kNoValue) {
    sizes.assign(static_cast<size_t>(extent), 1);
    squeeze = c.attrInt("keepdims", 1) == 0;
  } else {
    DFC_TRY_ASSIGN(split, c.constInts(c.input(1), "split"));
    if (c.rank(c.input(1)) == 0) {  // one size: equal parts, the last one shorter
      if (split.at(0) < 1) return c.error("split must be positive");
      for (int64_t at = 0; at < extent; at += split[0]) sizes.push_back(std::min(split[0], extent - at));
    } else
      sizes = split;
  }
  if (static_cast<int64_t>(sizes.size()) > kMaxSequenceLength) return c.error("too many parts");
  ListValue out;
  int64_t at = 0;
  for (int64_t n : sizes) {
    if (n < 0 || at + n > extent) return c.error("split sizes do not fit the axis of " + std::to_string(extent));
    DFC_TRY_ASSIGN(part, sliceAxis(c, x, static_cast<size_t>(axis), at, at + n, 1));
    if (squeeze) {
      ir::Shape s = c.shape(part);
      s.erase(s.begin() + axis);
      DFC_TRY_ASSIGN(r, c.reshape(part, s));
      part = r;
    }
    out.items.push_back(part);
    at += n;
  }
  if (at != extent)
    return c.error("split sizes sum to " + std::to_string(at) + ", the axis is " + std::to_string(extent));
  c.setListOutput(0, std::move(out));
  return {};
}

Status mapOptional(ImportContext& c) {
  ListValue out;
  out.optional = true;
  if (const ListValue* inner = c.list(0)) {
    if (inner->optional) return c.error("an optional of an optional is not supported");
    out.items = inner->items;
  } else if (c.input(0) != ir::kNoValue) {
    out.sequence = false;
    out.items = {c.input(0)};
  } else {
    out.present = false;
    const auto* type = c.attr("type");
    out.sequence = type && type->tp().has_sequence_type();
  }
  c.setListOutput(0, std::move(out));
  return {};
}

Status mapOptionalHasElement(ImportContext& c) {
  const ListValue* l = c.list(0);
  const bool present = l ? (!l->optional || l->present) : c.input(0) != ir::kNoValue;
  ir::Tensor t(ir::TensorType{DType::Bool, {}});
  t.data<bool>()[0] = present;
  c.setOutput(0, c.constant(std::move(t), "has_element"));
  return {};
}

Status mapOptionalGetElement(ImportContext& c) {
  const ListValue* l = c.list(0);
  if (!l) {  // opset 18: a tensor passes through
    DFC_TRY_ASSIGN(v, c.requireInput(0));
    c.setOutput(0, v);
    return {};
  }
  if (!l->optional) {
    c.setListOutput(0, *l);
    return {};
  }
  if (!l->present) return c.error("the optional is empty");
  if (l->sequence) {
    ListValue out;
    out.items = l->items;
    c.setListOutput(0, std::move(out));
  } else
    c.setOutput(0, l->items.at(0));
  return {};
}

// SequenceMap: the body once per position of its sequence inputs (all of one
// length); its tensor inputs go to every call, its outputs collect into sequences.
Status mapSequenceMap(ImportContext& c, const MapBody& mapBody) {
  const auto* a = c.attr("body");
  if (!a || !a->has_g()) return c.error("needs a body graph");
  int64_t length = -1;
  for (int i = 0; i < c.numInputs(); ++i)
    if (const ListValue* l = c.list(i)) {
      if (l->optional) return c.error("input " + std::to_string(i) + " is an optional, not a sequence");
      const auto n = static_cast<int64_t>(l->items.size());
      if (length >= 0 && n != length) return c.error("its sequences differ in length");
      length = n;
    }
  if (length < 0) return c.error("input 0 must be a sequence");
  std::vector<ListValue> outs(static_cast<size_t>(c.numOutputs()));
  const std::string prefix = c.node().name().empty() ? "SequenceMap" : c.node().name();
  for (int64_t k = 0; k < length; ++k) {
    std::vector<ValueId> args;
    for (int i = 0; i < c.numInputs(); ++i) {
      const ListValue* l = c.list(i);
      args.push_back(l ? l->items[static_cast<size_t>(k)] : c.input(i));
    }
    DFC_TRY_ASSIGN(results, mapBody(a->g(), prefix + "/" + std::to_string(k) + "/", args));
    if (results.size() != outs.size()) return c.error("its body gives " + std::to_string(results.size()) + " outputs");
    if (std::any_of(results.begin(), results.end(), ImportContext::isListToken))
      return c.error("its body gives a sequence or optional (not supported)");
    for (size_t o = 0; o < outs.size(); ++o) outs[o].items.push_back(results[o]);
  }
  for (size_t o = 0; o < outs.size(); ++o) c.setListOutput(static_cast<int>(o), std::move(outs[o]));
  return {};
}

}  // namespace

bool isListOp(ImportContext& c, const ::onnx::NodeProto& n) {
  static const std::set<std::string> kOps = {"SequenceConstruct",  "SequenceEmpty",      "SequenceInsert",
                                             "SequenceErase",      "SequenceAt",         "SequenceLength",
                                             "ConcatFromSequence", "SplitToSequence",    "SequenceMap",
                                             "Optional",           "OptionalHasElement", "OptionalGetElement"};
  if (kOps.count(n.op_type())) return true;
  return n.op_type() == "Identity" && n.input_size() == 1 && c.lists().count(n.input(0));
}

Status mapListOp(ImportContext& c, const MapBody& mapBody) {
  const std::string& op = c.node().op_type();
  if (op == "SequenceMap") return mapSequenceMap(c, mapBody);
  if (op == "SequenceConstruct") return mapSequenceConstruct(c);
  if (op == "SequenceEmpty") {
    c.setListOutput(0, ListValue{});
    return {};
  }
  if (op == "SequenceInsert" || op == "SequenceErase") return mapSequenceInsertOrErase(c, op == "SequenceInsert");
  if (op == "SequenceAt") return mapSequenceAt(c);
  if (op == "SequenceLength") {
    DFC_TRY_ASSIGN(seq, requireList(c, 0, true));
    c.setOutput(0, int64Scalar(c, static_cast<int64_t>(seq->items.size())));
    return {};
  }
  if (op == "ConcatFromSequence") return mapConcatFromSequence(c);
  if (op == "SplitToSequence") return mapSplitToSequence(c);
  if (op == "Optional") return mapOptional(c);
  if (op == "OptionalHasElement") return mapOptionalHasElement(c);
  if (op == "OptionalGetElement") return mapOptionalGetElement(c);
  c.setListOutput(0, *c.list(0));  // Identity
  return {};
}

}  // namespace dfc::onnx
