#include "runtime/kernels/Strided.h"

#include "runtime/kernels/Epilogue.h"  // DFC_VECTOR_CLONES

namespace dfc::runtime::kernels {

// Stride 2 (most strided convs and pools) on its own, so that it vectorizes.
DFC_VECTOR_CLONES void gatherStrided(float* __restrict dst, const float* __restrict src, int64_t count,
                                     int64_t stride) {
  if (stride == 2)
    for (int64_t q = 0; q < count; ++q) dst[q] = src[2 * q];
  else
    for (int64_t q = 0; q < count; ++q) dst[q] = src[q * stride];
}

}  // namespace dfc::runtime::kernels
