// Convolution and its gradients: im2col / col2im around a GEMM (Sgemm.h), one
// batch element at a time so the column buffer (the context's scratch) stays
// small. im2col and col2im split over the pool by channel, and so does the
// GEMM, by output rows or columns; a 1x1 stride-1 unpadded forward reads the
// input itself as the column matrix. 3x3 stride-1 forward and input gradient
// convolutions may run as Winograd instead, and forward ones on oneDNN's
// convolution primitive (ConvAlgo.h, Winograd.h, OneDnnConv.h).
#include <algorithm>
#include <cstring>
#include <memory>

#include "runtime/ConvAlgo.h"
#include "runtime/kernels/KernelFamilies.h"
#include "runtime/kernels/OneDnnConv.h"
#include "runtime/kernels/Pointwise.h"
#include "runtime/kernels/Sgemm.h"
#include "runtime/kernels/StemConv.h"
#include "runtime/kernels/Winograd.h"

namespace dfc::runtime::kernels {
namespace {

// The first output column ox (0..ow) with ox * stride >= offset: columns before
// it read left of the image (or, with the right edge's offset, inside it).
inline int64_t validFrom(int64_t offset, int64_t stride, int64_t ow) {
  if (offset <= 0) return 0;
  return std::min(ow, (offset + stride - 1) / stride);
}

// Channels [c0, c1) of col[(c*kh + i)*kw + j][oy*ow + ox] = x[c][oy*sh - ph + i][ox*sw - pw + j] (0 outside);
// col's rows are ld floats apart (ld >= oh * ow: several images side by side).
void im2col(const float* x, const Window& g, float* col, int64_t ld, int64_t c0, int64_t c1) {
  for (int64_t c = c0; c < c1; ++c)
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j) {
        float* row = col + ((c * g.kh + i) * g.kw + j) * ld;
        for (int64_t oy = 0; oy < g.oh; ++oy) {
          const int64_t iy = oy * g.sh - g.ph + i;
          float* dst = row + oy * g.ow;
          if (iy < 0 || iy >= g.h) {
            std::memset(dst, 0, static_cast<size_t>(g.ow) * sizeof(float));
            continue;
          }
          const float* src = x + (c * g.h + iy) * g.w;
          const int64_t shift = j - g.pw;  // column ox reads image column ox * sw + shift
          const int64_t lo = validFrom(-shift, g.sw, g.ow), hi = std::max(lo, validFrom(g.w - shift, g.sw, g.ow));
          std::fill(dst, dst + lo, 0.0f);
          if (g.sw == 1) std::copy(src + lo + shift, src + hi + shift, dst + lo);
          else for (int64_t ox = lo; ox < hi; ++ox) dst[ox] = src[ox * g.sw + shift];
          std::fill(dst + hi, dst + g.ow, 0.0f);
        }
      }
}

// The adjoint of im2col for channels [c0, c1): accumulates columns back into the image (dx must be zeroed).
void col2im(const float* col, const Window& g, float* dx, int64_t c0, int64_t c1) {
  const int64_t cols = g.oh * g.ow;
  for (int64_t c = c0; c < c1; ++c)
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j) {
        const float* row = col + ((c * g.kh + i) * g.kw + j) * cols;
        for (int64_t oy = 0; oy < g.oh; ++oy) {
          const int64_t iy = oy * g.sh - g.ph + i;
          if (iy < 0 || iy >= g.h) continue;
          float* __restrict dst = dx + (c * g.h + iy) * g.w;
          const float* __restrict src = row + oy * g.ow;
          const int64_t shift = j - g.pw;  // column ox reads image column ox * sw + shift
          const int64_t lo = validFrom(-shift, g.sw, g.ow), hi = validFrom(g.w - shift, g.sw, g.ow);
          for (int64_t ox = lo; ox < hi; ++ox) dst[ox * g.sw + shift] += src[ox];
        }
      }
}

enum class ConvPass { Forward, GradInput, GradWeight };

// Columns (forward) or inner length (weight gradient) a GEMM over small planes
// should have at least (imagesPerGemm): a product wide enough for the
// library's kernels; measured on ResNet-18 b8's layer 4 (49 columns an image),
// see the commit that set it.
constexpr int64_t kBlockColumns = 384;

// Image blocks of a weight gradient: enough for four threads, few enough that
// adding the partial gradients costs little.
constexpr int64_t kWeightGradBlocks = 4;

// in[0], in[1] and the output: (x, w) -> y, (dy, w) -> dx or (dy, x) -> dw.
class ConvKernel final : public Kernel {
 public:
  ConvKernel(const KernelArgs& a, ConvPass pass, const Window& g, int64_t outChannels)
      : Kernel(a.node), m_a(a.in[0]), m_b(a.in[1]), m_y(a.out[0]), m_pass(pass), m_g(g), m_o(outChannels),
        m_ck(g.c * g.kh * g.kw), m_cols(g.oh * g.ow) {}

  // The convolution, then its residual and activation epilogues in a pass
  // over the whole output unless oneDNN (post-ops) or the forward GEMMs (on
  // each output panel) applied them.
  Status run(ExecContext& ctx) override {
    DFC_TRY(compute(ctx));
    if ((m_act.activation == ConvActivation::None && !m_residual) || m_pass != ConvPass::Forward) return {};
    const ConvAlgo algo = algoFor(ctx.convAlgo());
    if (algo == ConvAlgo::Gemm || algo == ConvAlgo::Stem || algo == ConvAlgo::Pointwise) return {};
    if (onOneDnn(algo) && !activationAfterOneDnn(algo)) return {};
    float* y = m_y->data<float>();
    // oneDNN added the residual (a sum post-op) before an activation it left.
    const float* skip = m_residual && !onOneDnn(algo) ? m_residual->data<float>() : nullptr;
    return ctx.pool().parallelFor(0, m_y->numElements(), kElementGrain, [&](int64_t lo, int64_t hi) {
      if (skip) addResidual(y + lo, skip + lo, hi - lo);
      applyActivation(m_act, y + lo, hi - lo);
    });
  }

  bool takeResidualEpilogue(const ir::Tensor& skip, ir::Tensor& out) override {
    if (m_pass != ConvPass::Forward || m_oneDnn || m_residual || m_act.activation != ConvActivation::None) return false;
    if (skip.numElements() != m_y->numElements() || out.numElements() != m_y->numElements()) return false;
    if (skip.dtype() != ir::DType::F32 || out.dtype() != ir::DType::F32) return false;
    m_residual = &skip;
    m_y = &out;
    return true;
  }

  bool takeActivationEpilogue(const ir::Node& activation, ir::Tensor& out) override {
    ConvEpilogue e;
    if (!(m_pass == ConvPass::Forward) || m_oneDnn || !activationOf(activation, e) ||
        out.numElements() != m_y->numElements())
      return false;
    if (out.dtype() != ir::DType::F32) return false;
    m_act = e;
    m_y = &out;
    return true;
  }

  Status compute(ExecContext& ctx) {
    if (m_pass != ConvPass::GradWeight) {
      const ConvAlgo algo = algoFor(ctx.convAlgo());
      if (onOneDnn(algo)) return runOneDnn(ctx, algo);
      if (algo == ConvAlgo::Stem) return runStem(ctx);
      if (algo == ConvAlgo::Pointwise) return runPointwise(ctx);
      if (algo != ConvAlgo::Gemm) return runWinograd(ctx, algo);
    }
    if (m_pass == ConvPass::GradInput) std::memset(m_y->bytes(), 0, m_y->byteSize());
    if (m_pass == ConvPass::GradWeight && m_g.n == 0) std::memset(m_y->bytes(), 0, m_y->byteSize());
    const int threads = ctx.splitWidth();
    // Forward and input gradient are independent per image: with images enough
    // for every thread, each thread takes whole images with single-threaded GEMMs
    // (small convolutions' GEMMs do not split well). The weight gradient sums
    // over images: see gradWeightBlocks.
    if (m_pass == ConvPass::GradWeight && m_g.n > 1) return gradWeightBlocks(ctx);
    const int64_t perGemm = m_pass == ConvPass::Forward ? imagesPerGemm() : 1;
    if (m_pass != ConvPass::GradWeight && threads > 1 && m_g.n >= threads) {
      const int64_t share = (m_g.n + threads - 1) / threads, block = std::min(perGemm, share);
      const int64_t perThread = scratchFor(block);
      float* buffers = ctx.scratch(static_cast<size_t>(threads * perThread));
      return ctx.pool().parallelFor(0, threads, 1, [&](int64_t t0, int64_t t1) -> Status {
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t first = m_g.n * t / threads, last = m_g.n * (t + 1) / threads;
          for (int64_t b = first; b < last; b += block)
            DFC_TRY(images(b, std::min(block, last - b), buffers + t * perThread, nullptr));
        }
        return {};
      });
    }
    float* buffer = ctx.scratch(static_cast<size_t>(scratchFor(perGemm)));
    for (int64_t b = 0; b < m_g.n; b += perGemm)
      DFC_TRY(images(b, std::min(perGemm, m_g.n - b), buffer, &ctx.pool(), threads));
    return {};
  }

  // A forward conv with small output planes (layer 4 of ResNet-18: 7 x 7 = 49
  // columns per image) makes a GEMM too narrow for the library's kernels:
  // enough images to give it kBlockColumns columns go side by side in one GEMM.
  int64_t imagesPerGemm() const {
    if (m_cols >= kBlockColumns) return 1;
    return std::clamp<int64_t>((kBlockColumns + m_cols - 1) / m_cols, 1, std::max<int64_t>(1, m_g.n));
  }
  // Floats of scratch for `count` images at once: their columns, and (count > 1) their outputs side by side.
  int64_t scratchFor(int64_t count) const { return m_ck * m_cols * count + (count > 1 ? m_o * m_cols * count : 0); }

  // Images [b, b + count): the input gradient one at a time (count is 1); the
  // forward as y[b] [o, cols] = w [o, ck] @ col [ck, cols] (+ bias[o]), its
  // GEMM straight into y for one image, or, for several side by side, into
  // the scratch whose output rows are then copied to each image's planes.
  Status images(int64_t b, int64_t count, float* buffer, support::ThreadPool* pool, int splitWidth = 0) {
    if (m_pass != ConvPass::Forward) return image(b, buffer, pool, splitWidth);
    const int64_t image = m_g.c * m_g.h * m_g.w, ld = count * m_cols;
    const float* col = buffer;
    float* out = count == 1 ? m_y->data<float>() + b * m_o * m_cols : buffer + m_ck * ld;
    if (count == 1 && pointwise()) col = m_a->data<float>() + b * image;  // x [c, h*w] is the column matrix
    for (int64_t k = 0; col == buffer && k < count; ++k) {
      const float* x = m_a->data<float>() + (b + k) * image;
      auto fill = [&](int64_t c0, int64_t c1) { im2col(x, m_g, buffer + k * m_cols, ld, c0, c1); };
      if (pool) DFC_TRY(pool->parallelFor(0, m_g.c, grainOf(m_g.kh * m_g.kw * m_cols), fill));
      else fill(0, m_g.c);
    }
    GemmCall g{false, false, m_o, ld, m_ck, 1.0f, m_b->data<float>(), m_ck, col, ld, 0.0f, out, ld};
    g.rowBias = m_bias ? m_bias->data<float>() : nullptr;
    // One image: the residual and activation on the GEMM's output panels;
    // several: on each output row as it is copied to its image.
    if (count == 1) {
      g.residual = m_residual ? m_residual->data<float>() + b * m_o * m_cols : nullptr;
      g.ldr = ld;
      g.activation = &m_act;
    }
    DFC_TRY(pool ? sgemm(*pool, g, splitWidth) : sgemmOnThisThread(g));
    for (int64_t k = 0; count > 1 && k < count; ++k) {
      const int64_t image = (b + k) * m_o * m_cols;
      float* y = m_y->data<float>() + image;
      for (int64_t o = 0; o < m_o; ++o) {
        float* row = y + o * m_cols;
        std::copy_n(out + o * ld + k * m_cols, m_cols, row);
        if (m_residual) addResidual(row, m_residual->data<float>() + image + o * m_cols, m_cols);
        applyActivation(m_act, row, m_cols);
      }
    }
    return {};
  }

  // One image's input or weight gradient (the forward runs in images()):
  // im2col/col2im and the GEMM split over `pool` when given, else on this thread.
  Status image(int64_t b, float* col, support::ThreadPool* pool, int splitWidth = 0) {
    const int64_t image = m_g.c * m_g.h * m_g.w, channelGrain = grainOf(m_g.kh * m_g.kw * m_cols);
    auto channels = [&](auto fn) -> Status {
      if (!pool) {
        fn(0, m_g.c);
        return {};
      }
      return pool->parallelFor(0, m_g.c, channelGrain, fn);
    };
    auto gemm = [&](const GemmCall& g) { return pool ? sgemm(*pool, g, splitWidth) : sgemmOnThisThread(g); };
    if (m_pass == ConvPass::GradInput) {  // col [ck, cols] = w^T [ck, o] @ dy[b] [o, cols]
      DFC_TRY(gemm({true, false, m_ck, m_cols, m_o, 1.0f, m_b->data<float>(), m_ck,
                    m_a->data<float>() + b * m_o * m_cols, m_cols, 0.0f, col, m_cols}));
      float* dx = m_y->data<float>() + b * image;
      return channels([&](int64_t c0, int64_t c1) { col2im(col, m_g, dx, c0, c1); });
    }
    // dw [o, ck] (+)= dy[b] [o, cols] @ col^T [cols, ck]
    const float* x = m_b->data<float>() + b * image;
    DFC_TRY(channels([&](int64_t c0, int64_t c1) { im2col(x, m_g, col, m_cols, c0, c1); }));
    return gemm({false, true, m_o, m_ck, m_cols, 1.0f, m_a->data<float>() + b * m_o * m_cols, m_cols, col, m_cols,
                 b == 0 ? 0.0f : 1.0f, m_y->data<float>(), m_ck});
  }

  // The weight gradient over a fixed number of image blocks, whatever the
  // thread count (so the bits never depend on it): each block sums its images
  // in order into its own partial dW (the first block straight into the
  // output), the blocks spread over the pool, then the partials are added to
  // the output in block order.
  Status gradWeightBlocks(ExecContext& ctx) {
    const int64_t blocks = std::min(m_g.n, kWeightGradBlocks), dwSize = m_o * m_ck;
    // Small planes: a block's images side by side in one GEMM (imagesPerGemm),
    // its inner dimension their columns together, instead of one narrow
    // product per image, each a pass over dW.
    const int64_t perGemm = imagesPerGemm(), colSize = m_ck * m_cols * perGemm;
    const int64_t dySize = perGemm > 1 ? m_o * m_cols * perGemm : 0, taskSize = dwSize + colSize + dySize;
    float* scratch = ctx.scratch(static_cast<size_t>(blocks * taskSize));
    float* dwOut = m_y->data<float>();
    DFC_TRY(ctx.pool().parallelFor(0, blocks, 1, [&](int64_t k0, int64_t k1) -> Status {
      for (int64_t k = k0; k < k1; ++k) {
        float* task = scratch + k * taskSize;
        float* dw = k == 0 ? dwOut : task;
        const int64_t first = m_g.n * k / blocks, last = m_g.n * (k + 1) / blocks;
        for (int64_t b = first; b < last; b += perGemm)
          DFC_TRY(gradWeightImages(b, std::min(perGemm, last - b), task + dwSize, task + dwSize + colSize,
                                   b == first ? 0.0f : 1.0f, dw));
      }
      return {};
    }));
    for (int64_t k = 1; k < blocks; ++k) {
      const float* __restrict p = scratch + k * taskSize;
      float* __restrict y = dwOut;
      for (int64_t i = 0; i < dwSize; ++i) y[i] += p[i];
    }
    return {};
  }

  // dw [o, ck] = beta * dw + dy[b..b+count) [o, count*cols] @ col^T [count*cols, ck], on this thread.
  Status gradWeightImages(int64_t b, int64_t count, float* col, float* dyBlock, float beta, float* dw) const {
    const int64_t image = m_g.c * m_g.h * m_g.w, ld = count * m_cols;
    const float* dy = m_a->data<float>() + b * m_o * m_cols;
    for (int64_t k = 0; k < count; ++k) im2col(m_b->data<float>() + (b + k) * image, m_g, col + k * m_cols, ld, 0, m_g.c);
    if (count > 1) {
      for (int64_t o = 0; o < m_o; ++o)
        for (int64_t k = 0; k < count; ++k)
          std::copy_n(dy + (k * m_o + o) * m_cols, m_cols, dyBlock + o * ld + k * m_cols);
      dy = dyBlock;
    }
    return sgemmOnThisThread({false, true, m_o, m_ck, ld, 1.0f, dy, ld, col, ld, beta, dw, m_ck});
  }

  ConvShape shape() const {
    const ConvPassKind pass = m_pass == ConvPass::Forward     ? ConvPassKind::Forward
                              : m_pass == ConvPass::GradInput ? ConvPassKind::GradInput
                                                              : ConvPassKind::GradWeight;
    ConvShape s{pass, m_g.n, m_g.c, m_g.h, m_g.w, m_o, m_g.kh, m_g.kw, m_g.sh, m_g.sw, m_g.ph, m_g.pw, m_g.oh, m_g.ow};
    s.stableWeights = m_stableWeights;
    return s;
  }

  bool pointwise() const {
    return m_g.kh == 1 && m_g.kw == 1 && m_g.sh == 1 && m_g.sw == 1 && m_g.ph == 0 && m_g.pw == 0;
  }

  ConvGeometry oneDnnGeometry(ConvAlgo algo = ConvAlgo::OneDnn) const {
    const Window& g = m_g;
    ConvGeometry geometry{g.n, g.c, g.h, g.w, m_o, g.kh, g.kw, g.sh, g.sw, 1, 1, g.ph, g.pw, g.ph, g.pw, g.oh, g.ow, 1};
    geometry.winograd = algo == ConvAlgo::OneDnnWinograd;
    return geometry;
  }

  // oneDNN's Winograd takes no activation post-op but ReLU: this kernel applies the others on its output.
  bool activationAfterOneDnn(ConvAlgo algo) const {
    return algo == ConvAlgo::OneDnnWinograd && m_act.activation != ConvActivation::None &&
           m_act.activation != ConvActivation::Relu;
  }

  bool canHoldBlocked(ConvAlgoRequest request, int threads) const override {
    return m_pass == ConvPass::Forward && onOneDnn(algoFor(request)) && blockedLayoutFits(oneDnnGeometry());
  }

  void joinOneDnn() override { m_joinsOneDnn = m_pass == ConvPass::Forward; }

  // The algorithm a run takes: auto's per-shape choice, or oneDNN once joined
  // (only convs not already on oneDNN join: OneDnnJoins.h).
  ConvAlgo algoFor(ConvAlgoRequest request) const {
    return m_joinsOneDnn ? ConvAlgo::OneDnn : chooseConvAlgo(shape(), request);
  }

  void holdBlocked(bool x, bool skip, bool y) override { m_layouts = {x, skip && m_residual, y}; }

  bool prefersBlocked16(ConvAlgoRequest request, int threads) const override {
    return canHoldBlocked(request, threads) && algoFor(request) == ConvAlgo::OneDnnWinograd && m_g.c % 16 == 0 &&
           m_o % 16 == 0;
  }

  void holdBlocked16(bool x, bool skip, bool y) override {
    m_layouts.x16 = x && m_layouts.x, m_layouts.skip16 = skip && m_layouts.skip, m_layouts.y16 = y && m_layouts.y;
  }

  Status runOneDnn(ExecContext& ctx, ConvAlgo algo) {
    const int threads = ctx.splitWidth();
    if (!m_oneDnn) {
      const ConvActivation act = activationAfterOneDnn(algo) ? ConvActivation::None : m_act.activation;
      m_oneDnn = std::make_unique<OneDnnConv>(
          oneDnnGeometry(algo), ConvEpilogue{m_bias != nullptr, act, m_act.lo, m_act.hi, m_residual != nullptr},
          m_layouts);
    }
    const Expected<int64_t> floats = m_oneDnn->workspaceFloats(threads);
    if (!floats) return floats.error();
    return m_oneDnn->run(ctx.pool(), threads, m_a->data<float>(), m_b->data<float>(),
                         m_bias ? m_bias->data<float>() : nullptr, m_y->data<float>(),
                         ctx.scratch(static_cast<size_t>(*floats)), m_stableWeights,
                         m_residual ? m_residual->data<float>() : nullptr);
  }

  // The stem kernel applies the bias, residual and activation in registers.
  Status runStem(ExecContext& ctx) {
    const StemGeometry g{m_g.n, m_g.c, m_g.h, m_g.w, m_o, m_g.ph, m_g.pw, m_g.oh, m_g.ow};
    float* scratch = ctx.scratch(static_cast<size_t>(stemScratchFloats(g)));
    return runStemConv(ctx.pool(), g, m_act, m_a->data<float>(), m_b->data<float>(),
                       m_bias ? m_bias->data<float>() : nullptr, m_residual ? m_residual->data<float>() : nullptr,
                       m_y->data<float>(), scratch);
  }

  // The pointwise kernel applies the bias, residual and activation in registers.
  Status runPointwise(ExecContext& ctx) {
    if (!m_pointwise) m_pointwise = std::make_unique<PointwiseConv>(PointwiseGeometry{m_g.n, m_g.c, m_o, m_cols});
    return m_pointwise->run(ctx.pool(), m_act, m_a->data<float>(), m_b->data<float>(),
                            m_bias ? m_bias->data<float>() : nullptr, m_residual ? m_residual->data<float>() : nullptr,
                            m_y->data<float>(), m_stableWeights);
  }

  void markStableInput(size_t k) override {
    m_stableWeights = m_stableWeights || (k == 1 && m_pass == ConvPass::Forward);
  }

  // The input gradient of a stride-1 3x3 conv of dy padded by 2 - p with the kernel flipped and transposed.
  Status runWinograd(ExecContext& ctx, ConvAlgo algo) {
    const int m = algo == ConvAlgo::Winograd4 ? 4 : 2;
    if (!m_winograd || m_winograd->tileSize() != m) {
      const Window& g = m_g;
      const WinogradGeometry geometry =
          m_pass == ConvPass::Forward
              ? WinogradGeometry{g.n, g.c, g.h, g.w, m_o, g.oh, g.ow, g.ph, g.pw}
              : WinogradGeometry{g.n, m_o, g.oh, g.ow, g.c, g.h, g.w, 2 - g.ph, 2 - g.pw};
      m_winograd = std::make_unique<WinogradConv>(m, geometry, m_pass == ConvPass::GradInput);
    }
    return m_winograd->run(ctx, m_a->data<float>(), m_b->data<float>(), m_bias ? m_bias->data<float>() : nullptr,
                           m_y->data<float>());
  }

  // conv2d followed by bias_add(b[o]): each output plane starts as its bias and
  // the GEMM accumulates onto it (beta = 1) while the image's output is in cache.
  bool takeBiasEpilogue(const ir::Tensor& bias, ir::Tensor& out) override {
    if (m_pass != ConvPass::Forward || bias.numElements() != m_o || out.numElements() != m_y->numElements()) return false;
    if (bias.dtype() != ir::DType::F32 || out.dtype() != ir::DType::F32) return false;
    m_bias = &bias;
    m_y = &out;
    return true;
  }

 private:
  const ir::Tensor *m_a, *m_b;
  ir::Tensor* m_y;
  const ir::Tensor* m_bias = nullptr;        // set by takeBiasEpilogue
  const ir::Tensor* m_residual = nullptr;    // set by takeResidualEpilogue
  std::unique_ptr<WinogradConv> m_winograd;  // made on the first call that chooses Winograd
  std::unique_ptr<OneDnnConv> m_oneDnn;      // made on the first call that chooses oneDNN
  std::unique_ptr<PointwiseConv> m_pointwise;  // made on the first call that chooses the pointwise kernel
  ConvLayouts m_layouts;                       // its tensors held channels-last (holdBlocked)
  bool m_joinsOneDnn = false;                  // runs on oneDNN whatever auto picks (joinOneDnn)
  bool m_stableWeights = false;              // the weight never changes (markStableInput)
  ConvEpilogue m_act;                        // its activation, set by takeActivationEpilogue
  ConvPass m_pass;
  Window m_g;
  int64_t m_o, m_ck, m_cols;
};

// Geometry from the image shape x [n,c,h,w], weight shape [o,c,kh,kw] and output shape y.
Made prepare(const KernelArgs& a, ConvPass pass, const ir::Shape& x, const ir::Shape& w, const ir::Shape& y) {
  if (x.size() != 4 || w.size() != 4 || y.size() != 4) return a.fail("expects 4-D tensors");
  auto s = pairAttr(a.node, "stride", 1), p = pairAttr(a.node, "pad", 0);
  Window g{x[0], x[1], x[2], x[3], w[2], w[3], s[0], s[1], p[0], p[1], 0, 0};
  if (g.sh <= 0 || g.sw <= 0) return a.fail("stride must be positive");
  g.oh = (g.h + 2 * g.ph - g.kh) / g.sh + 1;
  g.ow = (g.w + 2 * g.pw - g.kw) / g.sw + 1;
  if (w[1] != x[1] || y[0] != x[0] || y[1] != w[0] || y[2] != g.oh || y[3] != g.ow)
    return a.fail("tensor shapes do not agree with the convolution geometry");
  return make<ConvKernel>(a, pass, g, w[0]);
}

}  // namespace

Made ConvKernels::Conv2d(const KernelArgs& a) {
  return prepare(a, ConvPass::Forward, a.in[0]->shape(), a.in[1]->shape(), a.out[0]->shape());
}
Made ConvKernels::Conv2dGradInput(const KernelArgs& a) {  // (dy, w) -> dx
  return prepare(a, ConvPass::GradInput, a.out[0]->shape(), a.in[1]->shape(), a.in[0]->shape());
}
Made ConvKernels::Conv2dGradWeight(const KernelArgs& a) {  // (dy, x) -> dw
  return prepare(a, ConvPass::GradWeight, a.in[1]->shape(), a.out[0]->shape(), a.in[0]->shape());
}

}  // namespace dfc::runtime::kernels
