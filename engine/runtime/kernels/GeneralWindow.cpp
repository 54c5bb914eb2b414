// conv (grouped, dilated, asymmetric pads) and pool (max/avg, ceil_mode,
// count_include_pad): direct loops. Ungrouped symmetric convolutions import
// as conv2d and use the BLAS kernel instead.
#include <cmath>
#include <limits>

#include "runtime/kernels/KernelCommon.h"

namespace dfc::runtime::kernels {
namespace {

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

Status runConvGeneral(const ir::Node& n, const ir::Tensor& x, const ir::Tensor& w, ir::Tensor& y) {
  const Geometry g = geometryOf(n);
  const auto &xs = x.shape(), &ws = w.shape(), &ys = y.shape();
  const int64_t group = n.intAttr("group", 1);
  const int64_t cin = ws[1], coutPerGroup = ws[0] / group, kh = ws[2], kw = ws[3];
  const float* px = x.data<float>();
  const float* pw = w.data<float>();
  float* py = y.data<float>();
  for (int64_t b = 0; b < ys[0]; ++b)
    for (int64_t o = 0; o < ys[1]; ++o) {
      const int64_t c0 = (o / coutPerGroup) * cin;
      for (int64_t oy = 0; oy < ys[2]; ++oy)
        for (int64_t ox = 0; ox < ys[3]; ++ox) {
          double acc = 0;
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
  return {};
}

Status runPoolGeneral(const ir::Node& n, const ir::Tensor& x, ir::Tensor& y) {
  const Geometry g = geometryOf(n);
  const auto k = n.intsAttr("kernel");
  const bool isMax = std::get<std::string>(n.attrs.at("fn")) == "max";
  const bool includePad = n.intAttr("count_include_pad") != 0;
  const auto &xs = x.shape(), &ys = y.shape();
  const float* px = x.data<float>();
  float* py = y.data<float>();
  for (int64_t b = 0; b < ys[0]; ++b)
    for (int64_t c = 0; c < ys[1]; ++c) {
      const float* plane = px + (b * xs[1] + c) * xs[2] * xs[3];
      for (int64_t oy = 0; oy < ys[2]; ++oy)
        for (int64_t ox = 0; ox < ys[3]; ++ox) {
          double acc = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
          int64_t count = 0, padded = 0;
          for (int64_t i = 0; i < k[0]; ++i) {
            const int64_t iy = oy * g.s[0] - g.p[0] + i * g.d[0];
            const bool rowInPad = iy >= -g.p[0] && iy < xs[2] + g.p[2];
            for (int64_t j = 0; j < k[1]; ++j) {
              const int64_t ix = ox * g.s[1] - g.p[1] + j * g.d[1];
              if (rowInPad && ix >= -g.p[1] && ix < xs[3] + g.p[3]) ++padded;
              if (iy < 0 || iy >= xs[2] || ix < 0 || ix >= xs[3]) continue;
              const double v = plane[iy * xs[3] + ix];
              acc = isMax ? std::max(acc, v) : acc + v;
              ++count;
            }
          }
          if (!isMax) acc /= static_cast<double>(includePad ? padded : std::max<int64_t>(count, 1));
          py[((b * ys[1] + c) * ys[2] + oy) * ys[3] + ox] = static_cast<float>(acc);
        }
    }
  return {};
}

}  // namespace

Status runWindowGeneral(const ir::Node& node, Inputs in, Outputs out) {
  if (node.op == ir::OpKind::Conv) return runConvGeneral(node, *in[0], *in[1], *out[0]);
  return runPoolGeneral(node, *in[0], *out[0]);
}

}  // namespace dfc::runtime::kernels
