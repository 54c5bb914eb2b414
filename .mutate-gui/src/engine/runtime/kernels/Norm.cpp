// Normalization: batch_norm per channel (batch statistics in training; with
// running statistics, those in inference and evaluation, as PyTorch's eval
// mode), layer_norm over the last axis, and their gradients. Statistics accumulate in double. Channels (batch
// norm) and rows (layer norm) split over the pool; layer_norm_grad's dgamma
// and dbeta sum over rows, so that sum runs on one thread in row order.
#include <cmath>
#include <cstring>

#include "runtime/kernels/FastMath.h"
#include "runtime/kernels/KernelFamilies.h"
#include "runtime/kernels/RowReduce.h"

namespace dfc::runtime::kernels {
namespace {

void affineLoop(const float* __restrict x, float a, float b, float* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * a + b;
}

// The sum of (x[i] - mu)^2 in double over kReduceLanes running lanes
// (RowReduce.h): one double accumulator made each add wait for the last.
DFC_WIDE_CLONES double squaredDeviations(const float* __restrict x, int64_t n, double mu) {
  const int64_t whole = n / kReduceLanes * kReduceLanes;
  double lane[kReduceLanes] = {};
  for (int64_t i = 0; i < whole; i += kReduceLanes)
    for (int64_t j = 0; j < kReduceLanes; ++j) {
      const double d = x[i + j] - mu;
      lane[j] += d * d;
    }
  double ss = 0;
  for (int64_t j = 0; j < kReduceLanes; ++j) ss += lane[j];
  for (int64_t i = whole; i < n; ++i) ss += (x[i] - mu) * (x[i] - mu);
  return ss;
}

// batch_norm_grad's sums over one image's plane of a channel: of dy, and of
// dy * x_hat with x_hat = (x - mean) * rstd (in float, as the kernel's dx
// uses it), in double over kReduceLanes lanes.
DFC_WIDE_CLONES void gradSums(const float* __restrict dy, const float* __restrict x, int64_t n, float mean, float rstd,
                              double& sdy, double& sdyx) {
  const int64_t whole = n / kReduceLanes * kReduceLanes;
  double a[kReduceLanes] = {}, b[kReduceLanes] = {};
  for (int64_t i = 0; i < whole; i += kReduceLanes)
    for (int64_t j = 0; j < kReduceLanes; ++j) {
      a[j] += dy[i + j];
      b[j] += dy[i + j] * (x[i + j] - mean) * rstd;
    }
  for (int64_t j = 0; j < kReduceLanes; ++j) sdy += a[j], sdyx += b[j];
  for (int64_t i = whole; i < n; ++i) {
    sdy += dy[i];
    sdyx += dy[i] * (x[i] - mean) * rstd;
  }
}

// Per-channel mean and biased variance over N and the spatial axes.
void channelMoments(const float* x, int64_t batch, int64_t channels, int64_t inner, int64_t c, double& mean,
                    double& var) {
  double s = 0, ss = 0;
  for (int64_t b = 0; b < batch; ++b) s += sumLoop(x + (b * channels + c) * inner, inner);
  const double m = static_cast<double>(batch * inner), mu = s / m;
  for (int64_t b = 0; b < batch; ++b) ss += squaredDeviations(x + (b * channels + c) * inner, inner, mu);
  mean = mu;
  var = ss / m;
}

// Per-channel mean and 1/sqrt(var + eps) over N and the spatial axes.
void channelStats(const float* x, int64_t batch, int64_t channels, int64_t inner, int64_t c, double eps, float& mean,
                  float& rstd) {
  double mu = 0, var = 0;
  channelMoments(x, batch, channels, inner, c, mu, var);
  mean = static_cast<float>(mu);
  rstd = static_cast<float>(1.0 / std::sqrt(var + eps));
}

// batch_norm (x, gamma, beta[, running_mean, running_var]) -> y[, running_mean', running_var'],
// or batch_norm_grad (dy, x, gamma) -> (dx, dgamma, dbeta).
class BatchNormKernel final : public Kernel {
 public:
  BatchNormKernel(const KernelArgs& a, bool grad, int64_t batch, int64_t channels, int64_t inner)
      : Kernel(a.node), m_in(a.in.begin(), a.in.end()), m_out(a.out.begin(), a.out.end()), m_grad(grad),
        m_running(!grad && a.in.size() == 5), m_training(a.node.intAttr("training", 0) != 0), m_batch(batch),
        m_channels(channels), m_inner(inner), m_eps(a.node.floatAttr("epsilon", 1e-5)),
        m_momentum(a.node.floatAttr("momentum", 0.1)) {}
  Status run(ExecContext& ctx) override {
    // Running statistics normalize unless this is a training step of a training graph.
    const bool byRunning = m_running && (!m_training || ctx.evaluating());
    return ctx.pool().parallelFor(0, m_channels, grainOf(m_batch * m_inner), [&](int64_t lo, int64_t hi) {
      for (int64_t c = lo; c < hi; ++c) byRunning ? runningChannel(c) : channel(c);
    });
  }

 private:
  void normalize(int64_t c, float a, float b) {
    for (int64_t n = 0; n < m_batch; ++n) {
      const int64_t off = (n * m_channels + c) * m_inner;
      affineLoop(m_in[0]->data<float>() + off, a, b, m_out[0]->data<float>() + off, m_inner);
    }
  }

  // Evaluation: y = (x - running_mean) / sqrt(running_var + eps) * gamma + beta; the statistics pass through.
  void runningChannel(int64_t c) {
    const float mean = m_in[3]->data<float>()[c], var = m_in[4]->data<float>()[c];
    const float a = static_cast<float>(1.0 / std::sqrt(static_cast<double>(var) + m_eps)) * m_in[1]->data<float>()[c];
    normalize(c, a, m_in[2]->data<float>()[c] - mean * a);
    m_out[1]->data<float>()[c] = mean;
    m_out[2]->data<float>()[c] = var;
  }

  // Training with running statistics: PyTorch's update, the variance unbiased (n / (n - 1)).
  void updateRunning(int64_t c, double mean, double var) {
    const double n = static_cast<double>(m_batch * m_inner), unbiased = n > 1 ? var * n / (n - 1) : var;
    const double oldMean = m_in[3]->data<float>()[c], oldVar = m_in[4]->data<float>()[c];
    m_out[1]->data<float>()[c] = static_cast<float>((1 - m_momentum) * oldMean + m_momentum * mean);
    m_out[2]->data<float>()[c] = static_cast<float>((1 - m_momentum) * oldVar + m_momentum * unbiased);
  }

  void channel(int64_t c) {
    const ir::Tensor& x = *m_in[m_grad ? 1 : 0];
    const float* gamma = m_in[m_grad ? 2 : 1]->data<float>();
    if (!m_grad) {
      double mu = 0, var = 0;
      channelMoments(x.data<float>(), m_batch, m_channels, m_inner, c, mu, var);
      const float mean = static_cast<float>(mu), rstd = static_cast<float>(1.0 / std::sqrt(var + m_eps));
      const float a = rstd * gamma[c];
      normalize(c, a, m_in[2]->data<float>()[c] - mean * a);
      if (m_running) updateRunning(c, mu, var);
      return;
    }
    float mean = 0, rstd = 0;
    channelStats(x.data<float>(), m_batch, m_channels, m_inner, c, m_eps, mean, rstd);
    const float m = static_cast<float>(m_batch * m_inner);
    double sdy = 0, sdyx = 0;
    for (int64_t n = 0; n < m_batch; ++n) {
      const int64_t off = (n * m_channels + c) * m_inner;
      gradSums(m_in[0]->data<float>() + off, x.data<float>() + off, m_inner, mean, rstd, sdy, sdyx);
    }
    const float k = gamma[c] * rstd, mdy = static_cast<float>(sdy) / m, mdyx = static_cast<float>(sdyx) / m;
    for (int64_t n = 0; n < m_batch; ++n) {
      const int64_t off = (n * m_channels + c) * m_inner;
      const float* __restrict dy = m_in[0]->data<float>() + off;
      const float* __restrict px = x.data<float>() + off;
      float* __restrict dx = m_out[0]->data<float>() + off;
      for (int64_t i = 0; i < m_inner; ++i) dx[i] = k * (dy[i] - mdy - (px[i] - mean) * rstd * mdyx);
    }
    m_out[1]->data<float>()[c] = static_cast<float>(sdyx);
    m_out[2]->data<float>()[c] = static_cast<float>(sdy);
  }

  std::vector<const ir::Tensor*> m_in;
  std::vector<ir::Tensor*> m_out;
  bool m_grad, m_running, m_training;
  int64_t m_batch, m_channels, m_inner;
  double m_eps, m_momentum;
};

// Mean and 1/sqrt(var + eps) of one row, both sums in double over
// kReduceLanes running lanes (RowReduce.h): one double accumulator made each
// add wait for the last, and layer_norm a tenth of a GPT-2 -o3 step.
DFC_WIDE_CLONES void rowStats(const float* __restrict x, int64_t n, double eps, float& mean, float& rstd) {
  const double mu = rowSumLanes<double>(x, n) / static_cast<double>(n);
  const double ss = squaredDeviations(x, n, mu);
  mean = static_cast<float>(mu);
  rstd = static_cast<float>(1.0 / std::sqrt(ss / static_cast<double>(n) + eps));
}

DFC_WIDE_CLONES void layerNormRow(const float* __restrict x, const float* __restrict g, const float* __restrict b, float* __restrict y,
                  int64_t n, float mean, float rstd) {
  for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * rstd * g[i] + b[i];
}

// dx = rstd * (g - mean(g) - xhat * mean(g * xhat)) with g = dy * gamma.
DFC_WIDE_CLONES void layerNormGradRow(const float* __restrict dy, const float* __restrict x, const float* __restrict gamma,
                      float* __restrict dx, int64_t n, float mean, float rstd) {
  const int64_t whole = n / kReduceLanes * kReduceLanes;
  double laneG[kReduceLanes] = {}, laneGx[kReduceLanes] = {};
  for (int64_t i = 0; i < whole; i += kReduceLanes)
    for (int64_t j = 0; j < kReduceLanes; ++j) {
      const float xhat = (x[i + j] - mean) * rstd, g = dy[i + j] * gamma[i + j];
      laneG[j] += g;
      laneGx[j] += static_cast<double>(g) * xhat;
    }
  double sg = 0, sgx = 0;
  for (int64_t j = 0; j < kReduceLanes; ++j) sg += laneG[j], sgx += laneGx[j];
  for (int64_t i = whole; i < n; ++i) {
    const float xhat = (x[i] - mean) * rstd, g = dy[i] * gamma[i];
    sg += g;
    sgx += static_cast<double>(g) * xhat;
  }
  const float mg = static_cast<float>(sg / static_cast<double>(n)), mgx = static_cast<float>(sgx / static_cast<double>(n));
  for (int64_t i = 0; i < n; ++i) dx[i] = rstd * (dy[i] * gamma[i] - mg - (x[i] - mean) * rstd * mgx);
}

// dgamma += dy * xhat, dbeta += dy for one row.
void layerNormParamGradRow(const float* __restrict dy, const float* __restrict x, float* __restrict dgamma,
                           float* __restrict dbeta, int64_t n, float mean, float rstd) {
  for (int64_t i = 0; i < n; ++i) {
    const float xhat = (x[i] - mean) * rstd;
    dgamma[i] += dy[i] * xhat;
    dbeta[i] += dy[i];
  }
}

// layer_norm (x, gamma, beta) -> y, or layer_norm_grad (dy, x, gamma) -> (dx, dgamma, dbeta).
class LayerNormKernel final : public Kernel {
 public:
  LayerNormKernel(const KernelArgs& a, bool grad, int64_t rows, int64_t cols)
      : Kernel(a.node), m_in(a.in.begin(), a.in.end()), m_out(a.out.begin(), a.out.end()), m_grad(grad), m_rows(rows),
        m_cols(cols), m_eps(a.node.floatAttr("epsilon", 1e-5)), m_mean(grad ? rows : 0), m_rstd(grad ? rows : 0) {}
  Status run(ExecContext& ctx) override {
    const int64_t cols = m_cols;
    const float* x = m_in[m_grad ? 1 : 0]->data<float>();
    const float* gamma = m_in[m_grad ? 2 : 1]->data<float>();
    float* y = m_out[0]->data<float>();
    DFC_TRY(ctx.pool().parallelFor(0, m_rows, grainOf(cols), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        float mean = 0, rstd = 0;
        rowStats(x + r * cols, cols, m_eps, mean, rstd);
        if (!m_grad) {
          layerNormRow(x + r * cols, gamma, m_in[2]->data<float>(), y + r * cols, cols, mean, rstd);
          continue;
        }
        m_mean[static_cast<size_t>(r)] = mean;
        m_rstd[static_cast<size_t>(r)] = rstd;
        layerNormGradRow(m_in[0]->data<float>() + r * cols, x + r * cols, gamma, y + r * cols, cols, mean, rstd);
      }
    }));
    if (!m_grad) return {};
    float* dgamma = m_out[1]->data<float>();
    float* dbeta = m_out[2]->data<float>();
    std::memset(dgamma, 0, m_out[1]->byteSize());
    std::memset(dbeta, 0, m_out[2]->byteSize());
    for (int64_t r = 0; r < m_rows; ++r)
      layerNormParamGradRow(m_in[0]->data<float>() + r * cols, x + r * cols, dgamma, dbeta, cols,
                            m_mean[static_cast<size_t>(r)], m_rstd[static_cast<size_t>(r)]);
    return {};
  }

 private:
  std::vector<const ir::Tensor*> m_in;
  std::vector<ir::Tensor*> m_out;
  bool m_grad;
  int64_t m_rows, m_cols;
  double m_eps;
  std::vector<float> m_mean, m_rstd;  // per row, kept from the dx pass for the dgamma/dbeta pass
};

Made batchNorm(const KernelArgs& a, bool grad) {
  for (const ir::Tensor* t : a.in)
    if (t->dtype() != ir::DType::F32) return a.fail("expects f32 tensors");
  const ir::Tensor& x = *a.in[grad ? 1 : 0];
  const ir::Shape& xs = x.shape();
  if (xs.size() < 2) return a.fail("needs [N, C, ...]");
  const int64_t batch = xs[0], channels = xs[1], inner = channels && batch ? x.numElements() / (batch * channels) : 0;
  return make<BatchNormKernel>(a, grad, batch, channels, inner);
}

Made layerNorm(const KernelArgs& a, bool grad) {
  const ir::Tensor& y = *a.out[0];
  const int64_t cols = y.shape().empty() ? 1 : y.shape().back();
  return make<LayerNormKernel>(a, grad, cols ? y.numElements() / cols : 0, cols);
}

}  // namespace

Made NormKernels::BatchNorm(const KernelArgs& a) { return batchNorm(a, false); }
Made NormKernels::BatchNormGrad(const KernelArgs& a) { return batchNorm(a, true); }
Made NormKernels::LayerNorm(const KernelArgs& a) { return layerNorm(a, false); }
Made NormKernels::LayerNormGrad(const KernelArgs& a) { return layerNorm(a, true); }

}  // namespace dfc::runtime::kernels
