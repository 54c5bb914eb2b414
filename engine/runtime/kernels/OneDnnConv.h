#pragma once
// A forward convolution on oneDNN's convolution primitive: any group count
// (depthwise included), dilation, stride and begin/end padding, with its bias
// and an activation applied on the output tile (post-ops). The primitives are
// made once for a thread count and reused; the input and output are
// reordered to and from the layout they pick (nChw16c) through the caller's
// workspace, the weights into buffers of their own (once when they are stable).
//
// Threads: the convolution is cut into one piece per thread of the runtime's
// pool (by images when the batch has one for each thread, by bands of output
// rows for one image with held tensors where the weights are no bigger than
// the output, else by output channels or groups), each a single-threaded
// primitive. oneDNN's OpenMP team
// stays at one, so libgomp starts no threads: its workers spin-wait after
// each parallel region (OMP_WAIT_POLICY is read before main) and took the
// cores from the pool's threads (MobileNetV2 at 2 threads 16.9 ms a step
// against 9.7 ms with OMP_WAIT_POLICY=passive).
#include <cstdint>
#include <memory>
#include <string>

#include "ir/Graph.h"
#include "runtime/kernels/Epilogue.h"
#include "support/Error.h"
#include "support/ThreadPool.h"

namespace dfc::runtime::kernels {

// NCHW geometry, ONNX-style: the weight is [o, c / group, kh, kw], dilation 1 is dense.
struct ConvGeometry {
  int64_t n = 0, c = 0, h = 0, w = 0, o = 0, kh = 0, kw = 0;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
  int64_t oh = 0, ow = 0, group = 1;
  // oneDNN's Winograd algorithm instead of its direct one (3x3, stride 1,
  // ungrouped, undilated): it picks F(2x2,3x3) or F(4x4,3x3) itself and runs
  // in its own blocked layout, so a held tensor is reordered to it and back.
  bool winograd = false;
};

// oneDNN has a Winograd convolution for this CPU (AVX-512: it made a
// 16-channel 3x3 one with a bias, a sum and a ReLU, its forms in a network).
bool oneDnnWinogradAvailable();

// Which of a convolution's tensors are held channels-last (NHWC) instead of
// NCHW: the executor keeps a tensor so between convolutions on oneDNN
// (Executor's blocked-layout plan), which then read and write it with no
// reorder. NHWC is what oneDNN's AVX-512 convolutions (brgconv) pick for
// fp32: held as nChw16c, ResNet-50 b1 at one thread reordered to it and back
// around every conv (61.3 ms a step with every conv on oneDNN, 55.3 ms held NHWC).
// A held tensor shared only by convolutions on oneDNN's Winograd is held in
// its layout instead, nChw16c (x16, skip16, y16; whole 16-channel blocks):
// ResNet-18's chains of 3x3s pass with no reorder.
struct ConvLayouts {
  bool x = false, skip = false, y = false;
  bool x16 = false, skip16 = false, y16 = false;
};

// g's tensors can be held channels-last: it is ungrouped. Every cut fits: a
// piece's slice is seen with the whole tensor's strides, and one that writes
// a strided block of channels writes a dense one reordered into place.
bool blockedLayoutFits(const ConvGeometry& g);

class OneDnnConv {
 public:
  OneDnnConv(const ConvGeometry& g, const ConvEpilogue& e, ConvLayouts layouts = {});
  ~OneDnnConv();
  OneDnnConv(const OneDnnConv&) = delete;
  OneDnnConv& operator=(const OneDnnConv&) = delete;

  // Floats of workspace run() needs for `threads` pieces (their reordered
  // inputs and outputs and scratchpads, 64-byte aligned); makes the primitives.
  Expected<int64_t> workspaceFloats(int threads);
  // y = act(conv(x, w) + bias + skip), the pieces spread over `pool`;
  // `workspace` holds workspaceFloats(threads). stableWeights: w holds the
  // same values on every call (reordered once). skip: y's shape, given when
  // the epilogue has a residual (a sum post-op onto dst, which first holds it).
  Status run(support::ThreadPool& pool, int threads, const float* x, const float* w, const float* bias, float* y,
             float* workspace, bool stableWeights, const float* skip = nullptr);
  // The pieces a call is cut into (after workspaceFloats).
  int pieces() const;
  // oneDNN's implementation, e.g. "jit_dw:avx512_core" ("" before the primitive is made).
  std::string implementation() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace dfc::runtime::kernels
