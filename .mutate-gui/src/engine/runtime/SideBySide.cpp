#include "runtime/SideBySide.h"

namespace dfc::runtime {

SideBySideKernel::SideBySideKernel(std::vector<KernelPtr> parts)
    : Kernel(parts.back()->node()), m_parts(std::move(parts)) {}

Status SideBySideKernel::run(ExecContext& ctx) {
  const auto parts = static_cast<int64_t>(m_parts.size());
  if (ctx.pool().threads() < 2) {
    for (const KernelPtr& k : m_parts) DFC_TRY(k->run(ctx));
    return {};
  }
  // A fixed width keeps its pieces (the same bits on any pool); else each part is cut for one thread.
  const int requested = ctx.requestedSplitWidth();
  if (requested <= 0) ctx.setSplitWidth(1);
  Status st = ctx.pool().parallelFor(0, parts, 1, [&](int64_t lo, int64_t hi) -> Status {
    for (int64_t i = lo; i < hi; ++i) DFC_TRY(m_parts[static_cast<size_t>(i)]->run(ctx));
    return {};
  });
  ctx.setSplitWidth(requested);
  return st;
}

}  // namespace dfc::runtime
