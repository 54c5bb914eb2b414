#pragma once
// A forward convolution on oneDNN's convolution primitive: any group count
// (depthwise included), dilation, stride and begin/end padding, with its bias
// and an activation applied on the output tile (post-ops). The primitive is
// made once for a thread count and reused; the input and output are
// reordered to and from the layout it picks (nChw16c) through the caller's
// workspace, the weights into a buffer of its own (once when they are stable).
//
// Threads: oneDNN runs on its OpenMP team, sized to the runtime's split width
// for the call and set back to one afterwards, so the runtime's GEMMs
// (Sgemm.h) on the same thread keep running on one.
#include <cstdint>
#include <memory>
#include <string>

#include "ir/Graph.h"
#include "support/Error.h"

namespace dfc::runtime::kernels {

// NCHW geometry, ONNX-style: the weight is [o, c / group, kh, kw], dilation 1 is dense.
struct ConvGeometry {
  int64_t n = 0, c = 0, h = 0, w = 0, o = 0, kh = 0, kw = 0;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
  int64_t oh = 0, ow = 0, group = 1;
};

// After the sum: + bias[o] (when given), then the activation.
enum class ConvActivation { None, Relu, Clip };
struct ConvEpilogue {
  bool bias = false;
  ConvActivation activation = ConvActivation::None;
  float lo = 0, hi = 0;  // Clip's bounds
};

// A relu (the op, or unary fn relu) or a clip (unary fn clip, bounds alpha and
// beta) as `e`'s activation; false for any other node.
bool activationOf(const ir::Node& node, ConvEpilogue& e);

// The activation on y[0..n) in place, as the op would (kernels other than oneDNN's).
void applyActivation(const ConvEpilogue& e, float* y, int64_t n);

class OneDnnConv {
 public:
  OneDnnConv(const ConvGeometry& g, const ConvEpilogue& e);
  ~OneDnnConv();
  OneDnnConv(const OneDnnConv&) = delete;
  OneDnnConv& operator=(const OneDnnConv&) = delete;

  // Floats of workspace run() needs for `threads` (its reordered input and
  // output and the primitive's scratchpad, 64-byte aligned); makes the primitive.
  Expected<int64_t> workspaceFloats(int threads);
  // y = act(conv(x, w) + bias); `workspace` holds workspaceFloats(threads).
  // stableWeights: w holds the same values on every call (reordered once).
  Status run(int threads, const float* x, const float* w, const float* bias, float* y, float* workspace,
             bool stableWeights);
  // oneDNN's implementation, e.g. "jit_dw:avx512_core" ("" before the primitive is made).
  std::string implementation() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace dfc::runtime::kernels
