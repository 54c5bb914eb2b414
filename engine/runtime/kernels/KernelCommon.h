#pragma once
// Shared by the kernel families: argument spans, error helpers, and one entry
// point per family that Kernels.cpp dispatches to.
#include <span>
#include <string>

#include "ir/Graph.h"
#include "support/Error.h"

namespace dfc::runtime::kernels {

using Inputs = std::span<const ir::Tensor* const>;
using Outputs = std::span<ir::Tensor* const>;

inline Error nodeError(const ir::Node& node, const std::string& what) {
  return makeError(std::string(ir::opName(node.op)) + " '" + node.name + "': " + what);
}

// Attribute pair ("stride", "pad", "kernel") with the same fallback as shape inference.
inline std::vector<int64_t> pairAttr(const ir::Node& node, const char* key, int64_t fallback) {
  auto v = node.intsAttr(key);
  if (v.size() != 2) v = {fallback, fallback};
  return v;
}

// Geometry of one 2-D window op (conv or pool), NCHW.
struct Window {
  int64_t n = 0, c = 0, h = 0, w = 0;      // input
  int64_t kh = 0, kw = 0, sh = 1, sw = 1, ph = 0, pw = 0;
  int64_t oh = 0, ow = 0;                 // output
};

Status runElementwise(const ir::Node& node, Inputs in, Outputs out);
Status runShape(const ir::Node& node, Inputs in, Outputs out);
Status runMatMul(const ir::Node& node, Inputs in, Outputs out);
Status runConv(const ir::Node& node, Inputs in, Outputs out);
Status runPool(const ir::Node& node, Inputs in, Outputs out);
Status runSoftmax(const ir::Node& node, Inputs in, Outputs out);
Status runOptimizer(const ir::Node& node, Inputs in, Outputs out);
Status runLayout(const ir::Node& node, Inputs in, Outputs out);       // transpose, slice, batch_matmul
Status runTransformer(const ir::Node& node, Inputs in, Outputs out);  // gelu, layer_norm, embedding, ...
Status runVision(const ir::Node& node, Inputs in, Outputs out);       // global_avg_pool, batch_norm, adam_update
Status runGeneral(const ir::Node& node, Inputs in, Outputs out);      // unary, binary, where, cast, reduce, conv, pool, ...

}  // namespace dfc::runtime::kernels
