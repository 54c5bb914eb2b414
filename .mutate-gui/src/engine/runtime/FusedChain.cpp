#include "runtime/FusedChain.h"

#include <algorithm>
#include <array>

namespace dfc::runtime {

namespace {
// The chain runs on the pool in chunks this long (a few tiles each), so small tensors stay on one core.
constexpr int64_t kChunk = int64_t{1} << 16;
constexpr size_t kMaxInputs = 4;
}  // namespace

FusedChainKernel::FusedChainKernel(std::vector<KernelPtr> kernels, std::vector<Member> members, int64_t elements)
    : Kernel(kernels.back()->node()), m_kernels(std::move(kernels)), m_members(std::move(members)), m_elements(elements) {}

Status FusedChainKernel::run(ExecContext& ctx) {
  return ctx.pool().parallelFor(0, m_elements, kChunk, [this](int64_t lo, int64_t hi) { runRange(lo, hi); });
}

void FusedChainKernel::runRange(int64_t lo, int64_t hi) const {
  alignas(64) std::array<float, static_cast<size_t>(kSlots * kTile)> buffer;
  auto at = [&](const Operand& o, int64_t start) -> float* {
    if (o.slot >= 0) return buffer.data() + o.slot * kTile;
    return const_cast<float*>(o.tensor->data<float>()) + start;
  };
  std::array<const float*, kMaxInputs> in{};
  for (int64_t start = lo; start < hi; start += kTile) {
    const int64_t n = std::min(kTile, hi - start);
    for (const Member& m : m_members) {
      for (size_t k = 0; k < m.inputs.size(); ++k) in[k] = at(m.inputs[k], start);
      m.kernel->runTile(in.data(), at(m.output, start), n);
    }
  }
}

}  // namespace dfc::runtime
