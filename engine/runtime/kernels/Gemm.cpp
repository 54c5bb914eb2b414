// MatMul and batch_matmul (Sgemm.h: oneDNN by default); linear is a
// composite with no kernel. A batch with a matrix per thread or more splits
// over the pool by matrix, else each GEMM splits over the pool itself. A 2-D
// matmul whose b never changes (inference weights) runs on oneDNN's matmul
// primitive with b packed once (OneDnnMatmul.h).
#include <memory>

#include "ir/ShapeProduct.h"
#include "runtime/kernels/KernelFamilies.h"
#include "runtime/kernels/OneDnnMatmul.h"
#include "runtime/kernels/Sgemm.h"
#include "support/ThreadPool.h"

namespace dfc::runtime::kernels {
namespace {

// y[i] = op(a[i]) @ op(b[i]) for each of `batch` matrices laid out back to back.
struct GemmShape {
  bool ta = false, tb = false;
  int64_t batch = 1, m = 0, n = 0, k = 0;
  int64_t lda = 0, ldb = 0;             // row lengths of a and b as stored
  int64_t aSize = 0, bSize = 0, ySize = 0;  // elements per batch entry
};

class GemmKernel final : public Kernel {
 public:
  GemmKernel(const KernelArgs& a, const GemmShape& g) : Kernel(a.node), m_a(a.in[0]), m_b(a.in[1]), m_y(a.out[0]), m_g(g) {}
  Status run(ExecContext& ctx) override {
    if (m_g.m == 0 || m_g.n == 0) return {};
    support::ThreadPool& pool = ctx.pool();
    const int width = ctx.splitWidth();
    if (prepacked()) return runPrepacked(pool, width);
    const bool small = m_g.batch * m_g.m * m_g.n * m_g.k < kMinSplitMacs;
    if (m_g.batch >= width && m_g.batch > 1 && !small)
      return pool.parallelFor(0, m_g.batch, 1, [&](int64_t i0, int64_t i1) -> Status {
        for (int64_t i = i0; i < i1; ++i) DFC_TRY(sgemmOnThisThread(call(i)));
        return {};
      });
    for (int64_t i = 0; i < m_g.batch; ++i) DFC_TRY(sgemm(pool, call(i), width));
    return {};
  }

  // A 2-D matmul [m, n] followed by bias_add(b[n]): the GEMM's epilogue
  // (Sgemm.h) writes the bias into each piece's rows and accumulates onto them,
  // one pass over the output instead of two.
  void markStableInput(size_t k) override { m_stableB = m_stableB || k == 1; }

  bool takeBiasEpilogue(const ir::Tensor& bias, ir::Tensor& out) override {
    if (m_g.batch != 1 || bias.numElements() != m_g.n || out.numElements() != m_g.m * m_g.n) return false;
    if (bias.dtype() != ir::DType::F32 || out.dtype() != ir::DType::F32) return false;
    m_bias = &bias;
    m_y = &out;
    return true;
  }

 private:
  // b never changes and the product is a matrix's (not a vector's: Gemv.h):
  // oneDNN's matmul primitive with b packed once, under --gemm auto.
  bool prepacked() const {
    return m_stableB && m_g.batch == 1 && !m_g.ta && m_g.m > 1 && m_g.k > 0 && gemmLibrary() == GemmLibrary::Auto &&
           prepackedMatmulAvailable();
  }

  Status runPrepacked(support::ThreadPool& pool, int width) {
    if (!m_matmul)
      m_matmul = std::make_unique<OneDnnMatmul>(
          MatmulShape{m_g.m, m_g.n, m_g.k, m_g.tb, m_g.lda, m_g.ldb, m_g.n, m_bias != nullptr});
    return m_matmul->run(pool, width, m_a->data<float>(), m_b->data<float>(), m_bias ? m_bias->data<float>() : nullptr,
                         m_y->data<float>());
  }

  // Batch entry i's product.
  GemmCall call(int64_t i) const {
    return {m_g.ta, m_g.tb, m_g.m, m_g.n, m_g.k, 1.0f, m_a->data<float>() + i * m_g.aSize, m_g.lda,
            m_b->data<float>() + i * m_g.bSize, m_g.ldb, 0.0f, m_y->data<float>() + i * m_g.ySize, m_g.n,
            m_bias ? m_bias->data<float>() : nullptr};
  }

  const ir::Tensor *m_a, *m_b;
  ir::Tensor* m_y;
  GemmShape m_g;
  const ir::Tensor* m_bias = nullptr;  // set by takeBiasEpilogue
  bool m_stableB = false;              // b never changes (markStableInput)
  std::unique_ptr<OneDnnMatmul> m_matmul;
};

}  // namespace

Made LinalgKernels::MatMul(const KernelArgs& a) {
  const ir::Shape &as = a.in[0]->shape(), &bs = a.in[1]->shape(), &ys = a.out[0]->shape();
  if (as.size() != 2 || bs.size() != 2 || ys.size() != 2) return a.fail("matmul expects 2-D tensors");
  GemmShape g;
  g.ta = a.node.intAttr("trans_a") != 0;
  g.tb = a.node.intAttr("trans_b") != 0;
  g.m = g.ta ? as[1] : as[0];
  g.k = g.ta ? as[0] : as[1];
  const int64_t kb = g.tb ? bs[1] : bs[0];
  g.n = g.tb ? bs[0] : bs[1];
  if (g.k != kb || ys[0] != g.m || ys[1] != g.n) return a.fail("matmul shapes do not agree");
  g.lda = as[1];
  g.ldb = bs[1];
  return make<GemmKernel>(a, g);
}

// A composite: the chip (and so the runtime) has no kernel for it.
Made LinalgKernels::Linear(const KernelArgs& a) {
  return a.fail("linear must be decomposed before execution (pass decompose-composites)");
}

Made LinalgKernels::BatchMatMul(const KernelArgs& a) {
  if (a.in[0]->dtype() != ir::DType::F32 || a.in[1]->dtype() != ir::DType::F32) return a.fail("expects f32");
  const ir::Shape &as = a.in[0]->shape(), &bs = a.in[1]->shape(), &ys = a.out[0]->shape();
  const size_t r = as.size();
  if (r < 3 || bs.size() != r || ys.size() != r) return a.fail("expects operands of equal rank >= 3");
  GemmShape g;
  g.ta = a.node.intAttr("trans_a") != 0;
  g.tb = a.node.intAttr("trans_b") != 0;
  g.m = ys[r - 2];
  g.n = ys[r - 1];
  g.k = g.ta ? as[r - 2] : as[r - 1];
  if ((g.tb ? bs[r - 1] : bs[r - 2]) != g.k) return a.fail("inner dimensions differ");
  g.batch = ir::dimProduct(as, 0, r - 2);
  if (ir::dimProduct(bs, 0, r - 2) != g.batch || ir::dimProduct(ys, 0, r - 2) != g.batch)
    return a.fail("leading dimensions differ");
  g.lda = as[r - 1];
  g.ldb = bs[r - 1];
  g.aSize = as[r - 2] * as[r - 1];
  g.bSize = bs[r - 2] * bs[r - 1];
  g.ySize = g.m * g.n;
  return make<GemmKernel>(a, g);
}

}  // namespace dfc::runtime::kernels
