#pragma once
// Row reductions that vectorize: eight running lanes, then the lanes folded
// (a single accumulator keeps GCC's loop scalar without -ffast-math). The
// order of the sum differs from a left-to-right sum only in rounding.
#include <cstdint>

namespace dfc::runtime::kernels {

constexpr int64_t kReduceLanes = 8;

// max(start, row[0..n)).
inline float rowMaxLanes(const float* __restrict row, int64_t n, float start) {
  const int64_t whole = n / kReduceLanes * kReduceLanes;
  float lane[kReduceLanes];
  for (int64_t j = 0; j < kReduceLanes; ++j) lane[j] = start;
  for (int64_t i = 0; i < whole; i += kReduceLanes)
    for (int64_t j = 0; j < kReduceLanes; ++j) lane[j] = row[i + j] > lane[j] ? row[i + j] : lane[j];
  float mx = start;
  for (int64_t j = 0; j < kReduceLanes; ++j) mx = lane[j] > mx ? lane[j] : mx;
  for (int64_t i = whole; i < n; ++i) mx = row[i] > mx ? row[i] : mx;
  return mx;
}

// sum of row[0..n) (or of a[i] * b[i] with rowDotLanes), accumulated in Acc.
template <typename Acc>
Acc rowSumLanes(const float* __restrict row, int64_t n) {
  const int64_t whole = n / kReduceLanes * kReduceLanes;
  Acc lane[kReduceLanes] = {};
  for (int64_t i = 0; i < whole; i += kReduceLanes)
    for (int64_t j = 0; j < kReduceLanes; ++j) lane[j] += row[i + j];
  Acc sum = 0;
  for (int64_t j = 0; j < kReduceLanes; ++j) sum += lane[j];
  for (int64_t i = whole; i < n; ++i) sum += row[i];
  return sum;
}

template <typename Acc>
Acc rowDotLanes(const float* __restrict a, const float* __restrict b, int64_t n) {
  const int64_t whole = n / kReduceLanes * kReduceLanes;
  Acc lane[kReduceLanes] = {};
  for (int64_t i = 0; i < whole; i += kReduceLanes)
    for (int64_t j = 0; j < kReduceLanes; ++j) lane[j] += static_cast<Acc>(a[i + j]) * b[i + j];
  Acc sum = 0;
  for (int64_t j = 0; j < kReduceLanes; ++j) sum += lane[j];
  for (int64_t i = whole; i < n; ++i) sum += static_cast<Acc>(a[i]) * b[i];
  return sum;
}

}  // namespace dfc::runtime::kernels
