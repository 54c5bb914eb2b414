#pragma once
// The runtime: runs a compiled graph section by section, in schedule order,
// on the host CPU. Buffers are assigned by the memory planner; parameters and
// optimizer state persist across steps (StateUpdates are applied after each
// training step).
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/Graph.h"
#include "partition/Plan.h"
#include "runtime/ConvAlgo.h"
#include "runtime/SectionFusion.h"
#include "support/Error.h"
#include "support/ThreadPool.h"

namespace dfc::dist {
class Communicator;
}

namespace dfc::runtime {

struct ExecutorOptions {
  int threads = 0;      // the thread pool's size (GEMMs split over it too); <= 0: the machine's hardware threads
  bool fuse = true;     // run fused groups inside a section (SectionFusion.h); false: op by op, as the reference order
  bool fuseAttention = true;  // with fuse: attention chains as FlashAttention kernels (AttentionFusion.h)
  ConvAlgoRequest convAlgo = ConvAlgoRequest::Auto;  // 3x3 stride-1 convolutions: GEMM or Winograd (ConvAlgo.h)
  dist::Communicator* communicator = nullptr;  // data parallel: all_reduce nodes average over it (outlives the executor)
  std::chrono::microseconds poolSpin = support::ThreadPool::kSpin;  // idle pool threads watch for work this long
  // > 0: work is cut as for this many threads whatever `threads` is, so the
  // results are bitwise the same on any pool (dfc run --deterministic); 0:
  // cut for the pool, where a GEMM's pieces may round differently by size.
  int splitWidth = 0;
  // Time every kernel the step runs, by label (Executor::kernelProfile): two
  // clock reads per kernel, for dfc measure-performance --op-profile.
  bool profileKernels = false;
  // Keep tensors that pass only between convolutions on oneDNN channels-last
  // (NHWC), without the reorders to and from NCHW (BlockedLayouts.h).
  bool blockedLayouts = true;
};

// Host time of one kind of kernel over the steps since the profile was reset.
// The label is the op's name ("matmul", "gelu"), or what fusion made of a
// group ("matmul + bias_add", "elementwise chain (fused)", "attention forward
// (fused)"); the family is its Ops.def family ("linalg", "elementwise", ...).
struct KernelTime {
  std::string label;
  std::string family;
  int64_t calls = 0;
  double totalUs = 0;
  double libraryUs = 0;  // of totalUs, inside library GEMM/conv calls (thread time, support/LibraryClock.h)
};

// The split width of dfc run --deterministic: a GEMM at most 8 pieces.
constexpr int kDeterministicSplitWidth = 4;

struct SectionCall {
  int sectionId = 0;
  std::chrono::steady_clock::time_point start;
  double durationUs = 0;  // measured around the section call
  double bytes = 0;       // bytes the call reads and writes (from tensor sizes)
};

class Executor {
 public:
  ~Executor();
  Executor(Executor&&) noexcept;
  Executor& operator=(Executor&&) noexcept;

  // Takes copies of the graph and plan; initializes params/consts from
  // graph.initializers, plans the arena, then prepares one kernel per node
  // (attributes decoded and shapes checked once, here).
  static Expected<Executor> create(const ir::Graph& graph, const partition::Plan& plan,
                                   const ExecutorOptions& options = {});

  // Copies `tensor` into the input `id` for the next step (type must match exactly).
  Status setInput(ir::ValueId id, const ir::Tensor& tensor);
  // Runs one step: every section of the schedule, or only Forward sections when
  // forwardOnly (evaluation with a training PEF). State updates are applied
  // after a full step, except an optimizer update that nothing later in the
  // step reads the old value of, which writes in place as it runs
  // (updatesInPlace()): a step that fails after it leaves that param updated. With gradient accumulation (Accumulate nodes with
  // accumulation_steps K) a training step adds its gradients into the sums, and
  // only every K-th one runs the optimizer sections, applies their updates and
  // zeroes the sums. `onSection` (may be empty) is called after each section call.
  Status step(bool forwardOnly, const std::function<void(const SectionCall&)>& onSection = {});
  // The current tensor of a value (outputs after a step; params at any time).
  // An intermediate that lived only in a fused chain's tiles has no data
  // (isDeferred()); one kept between convolutions channels-last
  // (ExecutorOptions::blockedLayouts) holds its bytes in that layout.
  const ir::Tensor& tensor(ir::ValueId id) const;
  // Peak bytes of the planned arena for intermediates.
  size_t arenaBytes() const;
  int threads() const;      // the pool's
  // What fusion made of the sections (zeros with ExecutorOptions::fuse off).
  const FusionStats& fusionStats() const;
  // State updates whose new value is written over its target during the step
  // (an optimizer update nothing later reads the old value of) instead of copied after it.
  int updatesInPlace() const;
  // With ExecutorOptions::profileKernels: each label's calls and time since the
  // last reset, largest first, state updates included ("state updates"); empty otherwise.
  std::vector<KernelTime> kernelProfile() const;
  void resetKernelProfile();

 private:
  struct Impl;
  explicit Executor(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

}  // namespace dfc::runtime
