#pragma once
// OpenBLAS at one thread for a scope (pool tasks that each run their own GEMM), then as it was.
#include <cblas.h>

namespace dfc::runtime::kernels {

class SingleThreadedBlas {
 public:
  SingleThreadedBlas() : m_before(openblas_get_num_threads()) {
    if (m_before != 1) openblas_set_num_threads(1);
  }
  ~SingleThreadedBlas() {
    if (m_before != 1) openblas_set_num_threads(m_before);
  }
  SingleThreadedBlas(const SingleThreadedBlas&) = delete;
  SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;

 private:
  int m_before;
};

}  // namespace dfc::runtime::kernels
