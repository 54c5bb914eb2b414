// MatMul through OpenBLAS.
#include <cblas.h>

#include "runtime/kernels/KernelCommon.h"

namespace dfc::runtime::kernels {

Status runMatMul(const ir::Node& node, Inputs in, Outputs out) {
  const ir::Tensor &a = *in[0], &b = *in[1];
  ir::Tensor& y = *out[0];
  if (a.shape().size() != 2 || b.shape().size() != 2 || y.shape().size() != 2)
    return nodeError(node, "matmul expects 2-D tensors");
  const bool ta = node.intAttr("trans_a") != 0, tb = node.intAttr("trans_b") != 0;
  const int64_t m = ta ? a.shape()[1] : a.shape()[0];
  const int64_t k = ta ? a.shape()[0] : a.shape()[1];
  const int64_t kb = tb ? b.shape()[1] : b.shape()[0];
  const int64_t n = tb ? b.shape()[0] : b.shape()[1];
  if (k != kb || y.shape()[0] != m || y.shape()[1] != n) return nodeError(node, "matmul shapes do not agree");
  if (m == 0 || n == 0) return {};
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
              static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0f, a.data<float>(),
              static_cast<int>(a.shape()[1]), b.data<float>(), static_cast<int>(b.shape()[1]), 0.0f,
              y.data<float>(), static_cast<int>(n));
  return {};
}

}  // namespace dfc::runtime::kernels
