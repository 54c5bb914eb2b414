#pragma once
// Prepared kernels. When the runtime loads a graph, each node's attributes are
// decoded once into a typed Kernel bound to its input and output tensors (the
// Tensor objects, whose buffers stay put); a step then only calls run(). The
// factories live in kernels/, one per op, found through a table generated
// from Ops.def (Kernels.cpp).
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/Graph.h"
#include "runtime/ConvAlgo.h"
#include "support/Error.h"
#include "support/ThreadPool.h"

namespace dfc::dist {
class Communicator;
}

namespace dfc::runtime {

// The first float of p on a 64-byte line (p itself when it is on one).
inline float* onLine(float* p) {
  const auto at = reinterpret_cast<uintptr_t>(p);
  return p + (64 - at % 64) % 64 / sizeof(float);
}

// `floats` floats of `buffer` (scratch kept between calls, grown, never
// shrunk) starting on a 64-byte line, so that no AVX-512 vector straddles
// two: malloc aligns to 16 only, and the kernels' speed then hung on where
// the heap put them (MobileNetV3's lane depthwise convs 15% slower after
// unrelated allocations moved it).
inline float* lineAligned(std::vector<float>& buffer, int64_t floats) {
  constexpr int64_t kSlack = 64 / sizeof(float);
  if (static_cast<int64_t>(buffer.size()) < floats + kSlack) buffer.resize(static_cast<size_t>(floats + kSlack));
  return onLine(buffer.data());
}

// What a kernel's run() gets besides its tensors: the pool to split loops over
// and scratch memory that persists across calls; in a data-parallel run, the
// communicator the all_reduce kernel averages gradients over. GEMMs split
// over the same pool (kernels/Sgemm.h): there are no other threads.
class ExecContext {
 public:
  explicit ExecContext(support::ThreadPool& pool, dist::Communicator* communicator = nullptr)
      : m_pool(&pool), m_communicator(communicator) {}
  support::ThreadPool& pool() const { return *m_pool; }
  dist::Communicator* communicator() const { return m_communicator; }  // null: a world of one
  // At least `count` floats on a 64-byte line (no AVX-512 vector straddles
  // two; a large vector's own data sits 16 bytes past a page), reused across
  // calls: grown, never shrunk, contents undefined. Take it before a parallel
  // loop, not inside one.
  float* scratch(size_t count) { return lineAligned(m_scratch, static_cast<int64_t>(count)); }
  // A forward-only evaluation step of a training graph (batch_norm then uses its running statistics).
  bool evaluating() const { return m_evaluating; }
  void setEvaluating(bool evaluating) { m_evaluating = evaluating; }
  // How 3x3 stride-1 convolutions run (runtime/ConvAlgo.h; `dfc run --conv-algo`).
  ConvAlgoRequest convAlgo() const { return m_convAlgo; }
  void setConvAlgo(ConvAlgoRequest request) { m_convAlgo = request; }
  // Threads the work is cut for (GEMM pieces, batch or split): the pool's
  // size unless fixed (ExecutorOptions::splitWidth), which makes every result
  // bitwise the same on any pool.
  int splitWidth() const { return m_splitWidth > 0 ? m_splitWidth : m_pool->threads(); }
  void setSplitWidth(int width) { m_splitWidth = width; }
  int requestedSplitWidth() const { return m_splitWidth; }  // 0: cut for the pool

 private:
  support::ThreadPool* m_pool;
  bool m_evaluating = false;
  ConvAlgoRequest m_convAlgo = ConvAlgoRequest::Auto;
  int m_splitWidth = 0;
  dist::Communicator* m_communicator;
  std::vector<float> m_scratch;
};

class Kernel {
 public:
  explicit Kernel(const ir::Node& node) : m_node(&node) {}
  virtual ~Kernel() = default;
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  virtual Status run(ExecContext& ctx) = 0;
  const ir::Node& node() const { return *m_node; }
  // A GEMM or convolution whose output only feeds a bias_add (bias along axis 1)
  // may take the bias as its epilogue: from then on run() writes output + bias
  // into `out` (the bias_add's output) and the bias_add is dropped. False: it cannot.
  virtual bool takeBiasEpilogue(const ir::Tensor& /*bias*/, ir::Tensor& /*out*/) { return false; }
  // A convolution whose output (after its bias epilogue, if taken) only feeds
  // a relu, clip, silu or hard_swish `activation` may apply it on its output
  // tile: from then on run() writes into `out` (the activation's output).
  // False: it cannot.
  virtual bool takeActivationEpilogue(const ir::Node& /*activation*/, ir::Tensor& /*out*/) { return false; }
  // A convolution whose output (after its bias epilogue, if taken) only feeds
  // an add with `skip`, a tensor of its shape (a residual connection), may add
  // it on its output tile, before an activation it takes after this: from
  // then on run() writes into `out` (the add's output). False: it cannot.
  virtual bool takeResidualEpilogue(const ir::Tensor& /*skip*/, ir::Tensor& /*out*/) { return false; }
  // Told once, before the first run: input k holds the same values on every
  // run (a Param or Const that no state update writes), so the kernel may keep
  // a transformed copy of it (oneDNN's weight layout).
  virtual void markStableInput(size_t /*k*/) {}
  // A forward convolution that runs on oneDNN's primitive under `request`,
  // cut for `threads`, with tensors that can be held channels-last
  // (kernels/OneDnnConv.h blockedLayoutFits). False: it cannot hold any.
  virtual bool canHoldBlocked(ConvAlgoRequest /*request*/, int /*threads*/) const { return false; }
  // Told once, before the first run (runtime/BlockedLayouts.h): from then on
  // run() reads its input x, reads its residual and writes its output in
  // channels-last (NHWC) where told, with no reorder to or from NCHW.
  virtual void holdBlocked(bool /*x*/, bool /*skip*/, bool /*y*/) {}
  // A convolution on oneDNN's Winograd over whole 16-channel blocks: a held
  // tensor it shares only with others that say so is held nChw16c, its layout.
  virtual bool prefersBlocked16(ConvAlgoRequest /*request*/, int /*threads*/) const { return false; }
  // Told after holdBlocked: which of its held tensors are nChw16c.
  virtual void holdBlocked16(bool /*x*/, bool /*skip*/, bool /*y*/) {}
  // Told once, before the first run and the blocked-layout plan: this
  // convolution runs on oneDNN whatever auto picks for its shape (OneDnnJoins.h).
  virtual void joinOneDnn() {}

 protected:
  // "conv2d 'conv1': <what>", for failures that depend on the data (a label out of range).
  Error fail(const std::string& what) const {
    return makeError(std::string(ir::opName(m_node->op)) + " '" + m_node->name + "': " + what);
  }

 private:
  const ir::Node* m_node;  // outlives the kernel (the executor's graph, or the caller's node)
};

using KernelPtr = std::unique_ptr<Kernel>;

// An elementwise kernel: output element i from element i of each input, all the
// same size. Besides run() over its own tensors it runs on a tile of elements
// through pointers it is given, so a fused chain can keep intermediates in a
// small cache-resident buffer (FusedChain).
class TileKernel : public Kernel {
 public:
  using Kernel::Kernel;
  // in[k] points at element 0 of the tile of input k (node().inputs order); n elements.
  virtual void runTile(const float* const* in, float* out, int64_t n) const = 0;
};

}  // namespace dfc::runtime
