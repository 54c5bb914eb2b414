#pragma once
// A strided row read into a contiguous run: one column phase of a row, as
// the depthwise kernel's and max pooling's phase planes read their input.
#include <cstdint>

namespace dfc::runtime::kernels {

// dst[q] = src[q * stride], q < count.
void gatherStrided(float* dst, const float* src, int64_t count, int64_t stride);

}  // namespace dfc::runtime::kernels
