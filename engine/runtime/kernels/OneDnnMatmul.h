#pragma once
// A 2-D matmul whose right operand never changes (a Param or Const in an
// inference step) on oneDNN's matmul primitive, its weights reordered once
// into the primitive's own blocked layout. dnnl_sgemm packs both operands
// on every call; on AVX-512 the primitive (brgemm) runs BERT's products at
// 128 tokens 8-25% faster (matmul against sgemm, one thread, Zen 4: 768 x
// 768 116 against 106 GFLOP/s, 3072 -> 768 112 against 89). Output columns
// are cut into one piece per thread of the split width, each piece its own
// primitive over its columns' weights, so the bits depend on the split width
// only, not on the pool. The packed weights are a second copy of b.
#include <cstdint>
#include <memory>
#include <string>

#include "support/Error.h"
#include "support/ThreadPool.h"

namespace dfc::runtime::kernels {

struct MatmulShape {
  int64_t m = 0, n = 0, k = 0;
  bool tb = false;  // b stored [n, k] (b^T), else [k, n]
  int64_t lda = 0, ldb = 0, ldc = 0;
  bool bias = false;  // c = a @ op(b) + bias[n]
};

// oneDNN runs AVX-512 kernels on this CPU (where the prepacked primitive was measured to win).
bool prepackedMatmulAvailable();

class OneDnnMatmul {
 public:
  explicit OneDnnMatmul(const MatmulShape& s);
  ~OneDnnMatmul();
  OneDnnMatmul(const OneDnnMatmul&) = delete;
  OneDnnMatmul& operator=(const OneDnnMatmul&) = delete;

  // c = a @ op(b) (+ bias), cut for `width` pieces (made on the first call
  // with that width); b's reorder runs on the first call only: b must hold
  // the same values on every call.
  Status run(support::ThreadPool& pool, int width, const float* a, const float* b, const float* bias, float* c);
  // oneDNN's implementation, e.g. "brg:avx512_core" ("" before the first run).
  std::string implementation() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace dfc::runtime::kernels
