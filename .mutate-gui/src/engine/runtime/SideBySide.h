#pragma once
// Independent kernels of one section run at once, one per pool thread (a
// SideBySide fusion group: SectionFusion.h). Unless the work is cut at a fixed
// width (dfc run --deterministic), a part's GEMM then runs as one library call
// on its thread instead of in pieces over the whole pool: bigger calls, no
// handing of pieces between threads. On a one-thread pool the parts run in turn.
#include <vector>

#include "runtime/Kernel.h"

namespace dfc::runtime {

class SideBySideKernel final : public Kernel {
 public:
  explicit SideBySideKernel(std::vector<KernelPtr> parts);
  Status run(ExecContext& ctx) override;

 private:
  std::vector<KernelPtr> m_parts;
};

}  // namespace dfc::runtime
