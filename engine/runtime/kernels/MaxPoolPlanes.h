#pragma once
// Forward max pooling of one plane through -inf-padded stride x stride phase
// planes (as the depthwise kernel reads its input): every window cell (i, j)
// is one contiguous compare over whole tiles of output rows, instead of a
// short strided run per output row. Its result is the reference's bit for
// bit when the plane holds no NaN: the cells are compared in the same window
// order, a cell taken only when strictly greater, and a -inf pad cell never
// is. (With a NaN, the reference keeps a window's first cell when that is the
// NaN; the caller runs its row-by-row search for such planes.)
#include <cstdint>

#include "runtime/kernels/KernelFamilies.h"

namespace dfc::runtime::kernels {

// Floats of scratch maxPoolPlane needs for g.
int64_t maxPoolPlaneScratch(const Window& g);

// Writes the -inf padding into scratch: once before the planes maxPoolPlane pools with it.
void maxPoolPrepare(const Window& g, float* scratch);

// y [oh, ow] = the window maxima of plane [h, w]; false (y unspecified) when the plane holds a NaN.
bool maxPoolPlane(const float* plane, const Window& g, float* y, float* scratch);

}  // namespace dfc::runtime::kernels
