// all_reduce: a gradient bucket averaged over the data-parallel ranks. The
// bucket's tensors are packed into one buffer so each bucket is one
// collective call (the compile chose the bucket size for that); in a world of
// one (no communicator, or --data-parallel without mpirun) it is a copy.
#include <cstring>

#include "dist/Communicator.h"
#include "runtime/kernels/KernelFamilies.h"

namespace dfc::runtime::kernels {
namespace {

class AllReduceKernel final : public Kernel {
 public:
  AllReduceKernel(const KernelArgs& a) : Kernel(a.node), m_in(a.in.begin(), a.in.end()), m_out(a.out.begin(), a.out.end()) {
    for (const ir::Tensor* t : m_in) m_floats += static_cast<size_t>(t->numElements());
  }

  Status run(ExecContext& ctx) override {
    dist::Communicator* comm = ctx.communicator();
    if (comm == nullptr || comm->worldSize() == 1) {
      for (size_t i = 0; i < m_in.size(); ++i)
        if (m_in[i]->bytes() != m_out[i]->bytes()) std::memcpy(m_out[i]->bytes(), m_in[i]->bytes(), m_in[i]->byteSize());
      return {};
    }
    float* packed = ctx.scratch(m_floats);
    size_t at = 0;
    for (const ir::Tensor* t : m_in) {
      std::memcpy(packed + at, t->bytes(), t->byteSize());
      at += static_cast<size_t>(t->numElements());
    }
    if (auto st = comm->allreduceAverage({packed, m_floats}); !st) return fail(st.error().message());
    at = 0;
    for (ir::Tensor* t : m_out) {
      std::memcpy(t->bytes(), packed + at, t->byteSize());
      at += static_cast<size_t>(t->numElements());
    }
    return {};
  }

 private:
  std::vector<const ir::Tensor*> m_in;
  std::vector<ir::Tensor*> m_out;
  size_t m_floats = 0;
};

}  // namespace

Made GeneralKernels::AllReduce(const KernelArgs& a) {
  if (a.in.empty() || a.in.size() != a.out.size()) return a.fail("needs as many outputs as inputs, at least one");
  if (!a.allF32()) return a.fail("reduces f32 tensors only");
  for (size_t i = 0; i < a.in.size(); ++i)
    if (a.in[i]->type() != a.out[i]->type()) return a.fail("output " + std::to_string(i) + " differs from its input");
  return make<AllReduceKernel>(a);
}

}  // namespace dfc::runtime::kernels
