// Optimizer updates, elementwise, split over the pool. An output is either a
// buffer of its own (the executor copies it over the parameter after the
// step) or its state input itself (the executor updates in place when nothing
// later in the step reads the old value): element i is read before it is
// written, so iterations never depend on one another either way (ivdep).
#include <cmath>
#include <string>

#include "runtime/kernels/KernelFamilies.h"

namespace dfc::runtime::kernels {
namespace {

void sgdLoop(const float* p, const float* __restrict g, float lr, float wd, float* out, int64_t n) {
#pragma GCC ivdep
  for (int64_t i = 0; i < n; ++i) out[i] = p[i] - lr * (g[i] + wd * p[i]);
}

// PyTorch semantics: v' = momentum*v + (g + wd*p); p' = p - lr*v'.
void momentumLoop(const float* p, const float* __restrict g, const float* v, float lr, float momentum, float wd,
                  float* pOut, float* vOut, int64_t n) {
#pragma GCC ivdep
  for (int64_t i = 0; i < n; ++i) {
    const float vn = momentum * v[i] + (g[i] + wd * p[i]);
    vOut[i] = vn;
    pOut[i] = p[i] - lr * vn;
  }
}

// m' = b1 m + (1-b1) g; v' = b2 v + (1-b2) g^2; p' = p - lr * m'/(1-b1^t) / (sqrt(v'/(1-b2^t)) + eps),
// with g = grad + wd * p (PyTorch Adam's L2 weight decay).
void adamLoop(const float* p, const float* __restrict g, const float* m, const float* v, float lr, float b1, float b2,
              float eps, float wd, float c1, float c2, float* pOut, float* mOut, float* vOut, int64_t n) {
#pragma GCC ivdep
  for (int64_t i = 0; i < n; ++i) {
    const float gi = g[i] + wd * p[i];
    const float mi = b1 * m[i] + (1.0f - b1) * gi, vi = b2 * v[i] + (1.0f - b2) * gi * gi;
    mOut[i] = mi;
    vOut[i] = vi;
    pOut[i] = p[i] - lr * (mi * c1) / (std::sqrt(vi * c2) + eps);
  }
}

enum class Rule { Sgd, Momentum, Adam };

// (param, grad, [state...], lr[, step]) -> (param', [state'...]).
class UpdateKernel final : public Kernel {
 public:
  UpdateKernel(const KernelArgs& a, Rule rule)
      : Kernel(a.node), m_in(a.in.begin(), a.in.end()), m_out(a.out.begin(), a.out.end()), m_rule(rule),
        m_wd(static_cast<float>(a.node.floatAttr("weight_decay", 0.0))),
        m_momentum(static_cast<float>(a.node.floatAttr("momentum", 0.0))),
        m_beta1(a.node.floatAttr("beta1", 0.9)), m_beta2(a.node.floatAttr("beta2", 0.999)),
        m_eps(static_cast<float>(a.node.floatAttr("epsilon", 1e-8))) {}

  Status run(ExecContext& ctx) override {
    auto f = [&](size_t i) { return m_in[i]->data<float>(); };
    auto o = [&](size_t i) { return m_out[i]->data<float>(); };
    const int64_t n = m_in[0]->numElements();
    if (m_rule == Rule::Sgd) {
      const float lr = *f(2);
      return ctx.pool().parallelFor(0, n, kElementGrain, [&](int64_t lo, int64_t hi) {
        sgdLoop(f(0) + lo, f(1) + lo, lr, m_wd, o(0) + lo, hi - lo);
      });
    }
    if (m_rule == Rule::Momentum) {
      const float lr = *f(3);
      return ctx.pool().parallelFor(0, n, kElementGrain, [&](int64_t lo, int64_t hi) {
        momentumLoop(f(0) + lo, f(1) + lo, f(2) + lo, lr, m_momentum, m_wd, o(0) + lo, o(1) + lo, hi - lo);
      });
    }
    const double t = *f(5);
    if (t < 1) return fail("step must be >= 1 (1-based), got " + std::to_string(t));
    const float lr = *f(4), b1 = static_cast<float>(m_beta1), b2 = static_cast<float>(m_beta2);
    const float c1 = static_cast<float>(1.0 / (1.0 - std::pow(m_beta1, t)));
    const float c2 = static_cast<float>(1.0 / (1.0 - std::pow(m_beta2, t)));
    return ctx.pool().parallelFor(0, n, kElementGrain, [&](int64_t lo, int64_t hi) {
      adamLoop(f(0) + lo, f(1) + lo, f(2) + lo, f(3) + lo, lr, b1, b2, m_eps, m_wd, c1, c2, o(0) + lo, o(1) + lo,
               o(2) + lo, hi - lo);
    });
  }

 private:
  std::vector<const ir::Tensor*> m_in;
  std::vector<ir::Tensor*> m_out;
  Rule m_rule;
  float m_wd, m_momentum;
  double m_beta1, m_beta2;
  float m_eps;
};

// param, grad and state of equal size; lr (and Adam's step) f32 scalars.
Made update(const KernelArgs& a, Rule rule, size_t tensors) {
  const int64_t n = a.in[0]->numElements();
  for (size_t i = 1; i < tensors; ++i)
    if (a.in[i]->numElements() != n) return a.fail("param, grad and state sizes differ");
  for (ir::Tensor* t : a.out)
    if (t->numElements() != n) return a.fail("output size differs from the param");
  for (size_t i = tensors; i < a.in.size(); ++i)
    if (a.in[i]->numElements() != 1 || a.in[i]->dtype() != ir::DType::F32)
      return a.fail(rule == Rule::Adam ? "lr and step must be scalars" : "learning rate must be an f32 scalar");
  if (rule == Rule::Adam && !a.allF32()) return a.fail("expects f32 tensors");
  return make<UpdateKernel>(a, rule);
}

}  // namespace

Made OptimizerKernels::SgdUpdate(const KernelArgs& a) { return update(a, Rule::Sgd, 2); }
Made OptimizerKernels::MomentumUpdate(const KernelArgs& a) { return update(a, Rule::Momentum, 3); }
Made OptimizerKernels::AdamUpdate(const KernelArgs& a) { return update(a, Rule::Adam, 4); }

}  // namespace dfc::runtime::kernels
