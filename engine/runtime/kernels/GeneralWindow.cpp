// conv (grouped, dilated, asymmetric pads) and pool (max/avg, ceil_mode,
// count_include_pad). conv runs on the depthwise kernel (Depthwise.h),
// oneDNN's convolution primitive (OneDnnConv.h), or under --conv-algo gemm on
// the direct loop, one output plane per task (ConvAlgo.h chooses); pool on
// direct loops. Ungrouped symmetric convolutions
// import as conv2d and use the GEMM / Winograd kernel instead.
#include <cmath>
#include <limits>
#include <memory>

#include "runtime/ConvAlgo.h"
#include "runtime/kernels/Depthwise.h"
#include "runtime/kernels/GeneralCommon.h"
#include "runtime/kernels/OneDnnConv.h"

namespace dfc::runtime::kernels {
namespace {

// The window attributes, ONNX defaults filled in.
struct Geometry {
  std::vector<int64_t> s, p, d;
};

Geometry geometryOf(const ir::Node& n) {
  Geometry g{n.intsAttr("strides"), n.intsAttr("pads"), n.intsAttr("dilations")};
  if (g.s.empty()) g.s = {1, 1};
  if (g.p.empty()) g.p = {0, 0, 0, 0};
  if (g.d.empty()) g.d = {1, 1};
  return g;
}

class ConvGeneralKernel final : public Kernel {
 public:
  explicit ConvGeneralKernel(const KernelArgs& a)
      : Kernel(a.node), m_x(a.in[0]), m_w(a.in[1]), m_y(a.out[0]), m_g(geometryOf(a.node)),
        m_group(a.node.intAttr("group", 1)) {}
  // The convolution, then its activation epilogue unless oneDNN or the depthwise kernel applied it on the tile.
  Status run(ExecContext& ctx) override {
    DFC_TRY(compute(ctx));
    const ConvAlgo algo = chooseConvAlgo(shape(), ctx.convAlgo());
    if (m_act.activation == ConvActivation::None || algo == ConvAlgo::OneDnn || algo == ConvAlgo::Depthwise) return {};
    float* y = m_y->data<float>();
    return ctx.pool().parallelFor(0, m_y->numElements(), kElementGrain,
                                  [&](int64_t lo, int64_t hi) { applyActivation(m_act, y + lo, hi - lo); });
  }

  bool takeActivationEpilogue(const ir::Node& activation, ir::Tensor& out) override {
    ConvEpilogue e;
    if (!(true) || m_oneDnn || !activationOf(activation, e) || out.numElements() != m_y->numElements()) return false;
    if (out.dtype() != ir::DType::F32) return false;
    m_act = e;
    m_y = &out;
    return true;
  }

  Status compute(ExecContext& ctx) {
    const ConvAlgo algo = chooseConvAlgo(shape(), ctx.convAlgo());
    if (algo == ConvAlgo::OneDnn) return runOneDnn(ctx);
    if (algo == ConvAlgo::Depthwise)
      return runDepthwise(ctx.pool(), geometry(), ConvEpilogue{m_bias != nullptr, m_act.activation, m_act.lo, m_act.hi},
                          m_x->data<float>(), m_w->data<float>(), m_bias ? m_bias->data<float>() : nullptr,
                          m_y->data<float>());
    const auto& ys = m_y->shape();
    return ctx.pool().parallelFor(0, ys[0] * ys[1], grainOf(ys[2] * ys[3] * m_w->numElements() / std::max<int64_t>(1, ys[1])),
                                  [&](int64_t lo, int64_t hi) {
                                    for (int64_t p = lo; p < hi; ++p) plane(p / ys[1], p % ys[1]);
                                  });
  }

 private:
  ConvShape shape() const {
    const auto &xs = m_x->shape(), &ws = m_w->shape(), &ys = m_y->shape();
    ConvShape s{ConvPassKind::Forward,
                xs[0],
                xs[1],
                xs[2],
                xs[3],
                ws[0],
                ws[2],
                ws[3],
                m_g.s[0],
                m_g.s[1],
                m_g.p[0],
                m_g.p[1],
                ys[2],
                ys[3]};
    s.dh = m_g.d[0], s.dw = m_g.d[1], s.group = m_group, s.pb = m_g.p[2], s.pr = m_g.p[3], s.general = true;
    s.stableWeights = m_stableWeights;
    return s;
  }

  ConvGeometry geometry() const {
    const ConvShape s = shape();
    return {s.n, s.c, s.h, s.w, s.o, s.kh, s.kw, s.sh, s.sw, s.dh, s.dw, s.ph, s.pw, s.pb, s.pr, s.oh, s.ow, s.group};
  }

  bool canHoldBlocked(ConvAlgoRequest request, int threads) const override {
    return chooseConvAlgo(shape(), request) == ConvAlgo::OneDnn && blockedLayoutFits(geometry());
  }

  void holdBlocked(bool x, bool, bool y) override { m_layouts = {x, false, y}; }

  Status runOneDnn(ExecContext& ctx) {
    const int threads = ctx.splitWidth();
    if (!m_oneDnn)
      m_oneDnn = std::make_unique<OneDnnConv>(
          geometry(), ConvEpilogue{m_bias != nullptr, m_act.activation, m_act.lo, m_act.hi}, m_layouts);
    const Expected<int64_t> floats = m_oneDnn->workspaceFloats(threads);
    if (!floats) return floats.error();
    return m_oneDnn->run(ctx.pool(), threads, m_x->data<float>(), m_w->data<float>(),
                         m_bias ? m_bias->data<float>() : nullptr, m_y->data<float>(),
                         ctx.scratch(static_cast<size_t>(*floats)), m_stableWeights);
  }

  // conv followed by bias_add(b[o]): oneDNN adds it on the output tile, the direct loop starts each sum from it.
  bool takeBiasEpilogue(const ir::Tensor& bias, ir::Tensor& out) override {
    if (bias.numElements() != m_w->shape()[0] || out.numElements() != m_y->numElements()) return false;
    if (bias.dtype() != ir::DType::F32 || out.dtype() != ir::DType::F32 || m_oneDnn) return false;
    m_bias = &bias;
    m_y = &out;
    return true;
  }

  void markStableInput(size_t k) override { m_stableWeights = m_stableWeights || k == 1; }

  // y[b][o] over all output positions.
  void plane(int64_t b, int64_t o) {
    const auto &xs = m_x->shape(), &ws = m_w->shape(), &ys = m_y->shape();
    const Geometry& g = m_g;
    const int64_t cin = ws[1], coutPerGroup = ws[0] / m_group, kh = ws[2], kw = ws[3];
    const float* px = m_x->data<float>();
    const float* pw = m_w->data<float>();
    float* py = m_y->data<float>();
    const int64_t c0 = (o / coutPerGroup) * cin;
    for (int64_t oy = 0; oy < ys[2]; ++oy)
      for (int64_t ox = 0; ox < ys[3]; ++ox) {
        double acc = m_bias ? m_bias->data<float>()[o] : 0.0;
        for (int64_t c = 0; c < cin; ++c)
          for (int64_t i = 0; i < kh; ++i) {
            const int64_t iy = oy * g.s[0] - g.p[0] + i * g.d[0];
            if (iy < 0 || iy >= xs[2]) continue;
            for (int64_t j = 0; j < kw; ++j) {
              const int64_t ix = ox * g.s[1] - g.p[1] + j * g.d[1];
              if (ix < 0 || ix >= xs[3]) continue;
              acc += static_cast<double>(px[((b * xs[1] + c0 + c) * xs[2] + iy) * xs[3] + ix]) *
                     pw[((o * cin + c) * kh + i) * kw + j];
            }
          }
        py[((b * ys[1] + o) * ys[2] + oy) * ys[3] + ox] = static_cast<float>(acc);
      }
  }

  const ir::Tensor *m_x, *m_w;
  ir::Tensor* m_y;
  Geometry m_g;
  int64_t m_group;
  const ir::Tensor* m_bias = nullptr;    // set by takeBiasEpilogue
  std::unique_ptr<OneDnnConv> m_oneDnn;  // made on the first run that chooses oneDNN
  ConvLayouts m_layouts;                 // its tensors held blocked (holdBlocked)
  bool m_stableWeights = false;
  ConvEpilogue m_act;  // its activation, set by takeActivationEpilogue
};

class PoolGeneralKernel final : public Kernel {
 public:
  explicit PoolGeneralKernel(const KernelArgs& a)
      : Kernel(a.node), m_x(a.in[0]), m_y(a.out[0]), m_g(geometryOf(a.node)), m_k(a.node.intsAttr("kernel")),
        m_isMax(fnAttr(a.node) == "max"), m_includePad(a.node.intAttr("count_include_pad") != 0) {}
  Status run(ExecContext& ctx) override {
    const auto& ys = m_y->shape();
    return ctx.pool().parallelFor(0, ys[0] * ys[1], grainOf(ys[2] * ys[3] * m_k[0] * m_k[1]), [&](int64_t lo, int64_t hi) {
      for (int64_t p = lo; p < hi; ++p) plane(p);
    });
  }

 private:
  // Output plane p = (b, c) over all output positions.
  void plane(int64_t p) {
    const auto &xs = m_x->shape(), &ys = m_y->shape();
    const Geometry& g = m_g;
    const float* src = m_x->data<float>() + p * xs[2] * xs[3];
    float* dst = m_y->data<float>() + p * ys[2] * ys[3];
    for (int64_t oy = 0; oy < ys[2]; ++oy)
      for (int64_t ox = 0; ox < ys[3]; ++ox) {
        double acc = m_isMax ? -std::numeric_limits<double>::infinity() : 0.0;
        int64_t count = 0, padded = 0;
        for (int64_t i = 0; i < m_k[0]; ++i) {
          const int64_t iy = oy * g.s[0] - g.p[0] + i * g.d[0];
          const bool rowInPad = iy >= -g.p[0] && iy < xs[2] + g.p[2];
          for (int64_t j = 0; j < m_k[1]; ++j) {
            const int64_t ix = ox * g.s[1] - g.p[1] + j * g.d[1];
            if (rowInPad && ix >= -g.p[1] && ix < xs[3] + g.p[3]) ++padded;
            if (iy < 0 || iy >= xs[2] || ix < 0 || ix >= xs[3]) continue;
            const double v = src[iy * xs[3] + ix];
            acc = m_isMax ? std::max(acc, v) : acc + v;
            ++count;
          }
        }
        if (!m_isMax) acc /= static_cast<double>(m_includePad ? padded : std::max<int64_t>(count, 1));
        dst[oy * ys[3] + ox] = static_cast<float>(acc);
      }
  }

  const ir::Tensor* m_x;
  ir::Tensor* m_y;
  Geometry m_g;
  std::vector<int64_t> m_k;
  bool m_isMax, m_includePad;
};

// The window attributes must have the lengths shape inference accepted.
Status checkWindow(const KernelArgs& a, size_t kernelSize) {
  const Geometry g = geometryOf(a.node);
  if (g.s.size() != 2 || g.p.size() != 4 || g.d.size() != 2 || kernelSize != 2) return a.fail("bad window attributes");
  for (const ir::Tensor* t : a.in)
    if (t->shape().size() != 4) return a.fail("needs 4-D NCHW operands");
  return {};
}

}  // namespace

Made GeneralKernels::Conv(const KernelArgs& a) {
  DFC_TRY(checkWindow(a, 2));
  if (a.node.intAttr("group", 1) <= 0 || a.in[1]->shape()[0] % a.node.intAttr("group", 1) != 0)
    return a.fail("bad group");
  return make<ConvGeneralKernel>(a);
}

Made GeneralKernels::Pool(const KernelArgs& a) {
  DFC_TRY(checkWindow(a, a.node.intsAttr("kernel").size()));
  return make<PoolGeneralKernel>(a);
}

}  // namespace dfc::runtime::kernels
