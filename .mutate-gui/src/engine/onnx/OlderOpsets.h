#pragma once
// Operator versions older than the ones the mappers implement (opset 11's),
// from the ONNX operator changelog: one table row per (op, version) that
// opsets 7-10 use where opset 11 has a newer version. A row says what changed
// up to opset 11's version and either that a valid node of the old version
// means the same, or which nodes differ (refused, naming the version and the
// difference), or how the node is rewritten into opset 11's form (attributes
// that became inputs). A version without a row is refused as before.
#include <onnx/onnx_pb.h>

#include <functional>
#include <string>
#include <vector>

#include "ir/Tensor.h"

namespace dfc::onnx {

// Adds a constant the rewritten node reads; returns the value name to use.
using ConstMaker = std::function<std::string(ir::Tensor data, const std::string& hint)>;

struct OlderOpVersion {
  const char* op;
  int version;
  const char* change;  // what later versions changed, up to opset 11's
  // nullptr: every valid node means the same; else "" when this node does, or what differs.
  std::string (*differs)(const ::onnx::NodeProto& node);
  // nullptr: mapped as written; else rewrites the node into opset 11's form.
  void (*upgrade)(::onnx::NodeProto& node, const ConstMaker& make);
};

const std::vector<OlderOpVersion>& olderOpVersions();

// What the importer does with a node at an opset below 11.
struct OlderNode {
  std::string problem;     // "" when the node imports; else "is version V at opset O ..."
  bool rewritten = false;  // true: map `node` instead of the original
  ::onnx::NodeProto node;
};
// Resize-10 or Upsample (X, scales) rewritten as Resize-11 (X, "", scales) on
// asymmetric coordinates, nearest rounding down: what those versions mean.
void rewriteAsResize11(::onnx::NodeProto& node);

OlderNode checkOlderNode(const ::onnx::NodeProto& node, int64_t opset, const ConstMaker& make);

}  // namespace dfc::onnx
