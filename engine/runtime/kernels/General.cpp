// The general ops: elementwise math with numpy broadcasting, casts,
// reductions and data movement (expand, concat, gather, strided_slice) over
// any dtype. The fn attribute picks a loop (a template instance) once, at
// prepare; broadcast strides are computed then too. Plain loops with a
// broadcast odometer, split over the pool by output element; the hot paths of
// real models (matmul, conv2d) stay in their BLAS kernels.
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>

#include "runtime/IntArith.h"
#include "runtime/kernels/FastUnary.h"
#include "runtime/kernels/GeneralCommon.h"
#include "runtime/kernels/RowBroadcast.h"
#include "support/Half.h"

namespace dfc::runtime::kernels {
namespace {

using ir::DType;

// --- unary: one loop per fn, f(x, alpha, beta) in double; exp, tanh, erf,
// sigmoid, silu, gelu_erf, hard_sigmoid and hard_swish have float loops instead (FastUnary.cpp) ---

template <typename Op>
void unaryLoop(const float* __restrict x, float* __restrict y, int64_t n, double a, double b) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(Op{}(static_cast<double>(x[i]), a, b));
}
template <typename Op>
constexpr UnaryLoop unaryOf(Op) {
  return &unaryLoop<Op>;
}

double softplus(double v) { return v > 30 ? v : std::log1p(std::exp(v)); }

struct NamedUnary {
  std::string_view name;
  UnaryLoop loop;
};

const NamedUnary kUnaryFns[] = {
    {"sqrt", unaryOf([](double v, double, double) { return std::sqrt(v); })},
    {"log", unaryOf([](double v, double, double) { return std::log(v); })},
    {"neg", unaryOf([](double v, double, double) { return -v; })},
    {"reciprocal", unaryOf([](double v, double, double) { return 1.0 / v; })},
    {"abs", unaryOf([](double v, double, double) { return std::fabs(v); })},
    {"relu", unaryOf([](double v, double, double) { return v > 0 ? v : 0.0; })},
    {"leaky_relu", unaryOf([](double v, double a, double) { return v >= 0 ? v : a * v; })},
    {"elu", unaryOf([](double v, double a, double) { return v >= 0 ? v : a * (std::exp(v) - 1); })},
    {"selu", unaryOf([](double v, double a, double b) { return b * (v > 0 ? v : a * (std::exp(v) - 1)); })},
    {"celu",
     unaryOf([](double v, double a, double) { return std::max(0.0, v) + std::min(0.0, a * (std::exp(v / a) - 1)); })},
    {"clip", unaryOf([](double v, double a, double b) { return std::min(std::max(v, a), b); })},
    {"softplus", unaryOf([](double v, double, double) { return softplus(v); })},
    {"softsign", unaryOf([](double v, double, double) { return v / (1 + std::fabs(v)); })},
    {"mish", unaryOf([](double v, double, double) { return v * std::tanh(softplus(v)); })},
    {"thresholded_relu", unaryOf([](double v, double a, double) { return v > a ? v : 0.0; })},
    {"shrink", unaryOf([](double v, double a, double b) { return v < -a  ? v + b
                                                                 : v > a ? v - b
                                                                         : 0.0; })},
    {"floor", unaryOf([](double v, double, double) { return std::floor(v); })},
    {"ceil", unaryOf([](double v, double, double) { return std::ceil(v); })},
    {"round", unaryOf([](double v, double, double) { return std::nearbyint(v); })},  // half to even
    {"sign", unaryOf([](double v, double, double) { return v > 0   ? 1.0
                                                           : v < 0 ? -1.0
                                                                   : 0.0; })},
    // A float16 value computed in f32, rounded to float16 (nearest even).
    {"round_f16",
     unaryOf([](double v, double, double) { return double{support::roundToHalf(static_cast<float>(v))}; })},
    {"round_bf16",
     unaryOf([](double v, double, double) { return double{support::roundToBfloat16(static_cast<float>(v))}; })},
    {"sin", unaryOf([](double v, double, double) { return std::sin(v); })},
    {"cos", unaryOf([](double v, double, double) { return std::cos(v); })},
    {"tan", unaryOf([](double v, double, double) { return std::tan(v); })},
    {"asin", unaryOf([](double v, double, double) { return std::asin(v); })},
    {"acos", unaryOf([](double v, double, double) { return std::acos(v); })},
    {"atan", unaryOf([](double v, double, double) { return std::atan(v); })},
    {"sinh", unaryOf([](double v, double, double) { return std::sinh(v); })},
    {"cosh", unaryOf([](double v, double, double) { return std::cosh(v); })},
    {"asinh", unaryOf([](double v, double, double) { return std::asinh(v); })},
    {"acosh", unaryOf([](double v, double, double) { return std::acosh(v); })},
    {"atanh", unaryOf([](double v, double, double) { return std::atanh(v); })},
};

enum class UnaryMode { Copy, Not, Math };

class UnaryKernel final : public Kernel {
 public:
  UnaryKernel(const KernelArgs& a, UnaryMode mode, UnaryLoop loop)
      : Kernel(a.node), m_x(a.in[0]), m_y(a.out[0]), m_mode(mode), m_loop(loop),
        m_alpha(a.node.floatAttr("alpha", 0.0)), m_beta(a.node.floatAttr("beta", 0.0)) {}
  Status run(ExecContext& ctx) override {
    if (m_mode == UnaryMode::Copy) {
      std::memcpy(m_y->bytes(), m_x->bytes(), m_x->byteSize());
      return {};
    }
    const int64_t count = m_x->numElements();
    if (m_mode == UnaryMode::Not) {
      for (int64_t i = 0; i < count; ++i) m_y->data<bool>()[i] = !m_x->data<bool>()[i];
      return {};
    }
    const float* x = m_x->data<float>();
    float* y = m_y->data<float>();
    return ctx.pool().parallelFor(0, count, kElementGrain / 8,  // transcendental: fewer elements per chunk
                                  [&](int64_t lo, int64_t hi) { m_loop(x + lo, y + lo, hi - lo, m_alpha, m_beta); });
  }

 private:
  const ir::Tensor* m_x;
  ir::Tensor* m_y;
  UnaryMode m_mode;
  UnaryLoop m_loop;
  double m_alpha, m_beta;
};

// --- binary: one loop per (dtype, fn), numpy broadcasting ---

using BinaryLoop = void (*)(const Broadcast<2>&, const std::byte*, const std::byte*, std::byte*, int64_t, int64_t);

template <typename T, typename R, typename Op>
void binaryLoop(const Broadcast<2>& bc, const std::byte* a, const std::byte* b, std::byte* y, int64_t lo, int64_t hi) {
  const T* pa = reinterpret_cast<const T*>(a);
  const T* pb = reinterpret_cast<const T*>(b);
  R* py = reinterpret_cast<R*>(y);
  bc.forEach(lo, hi, [&](int64_t i, const std::array<int64_t, 2>& o) { py[i] = Op{}(pa[o[0]], pb[o[1]]); });
}
// A run of contiguous output elements (RowBroadcast) reads each operand
// element by element or as one repeated element: a flat loop per case, which
// GCC vectorizes, over the same elements in the same order as the odometer, so
// the same bits. An exported graph's scalar constants (GELU's 0.5, attention's
// 1/sqrt(d)) and per-channel broadcasts made the odometer's loop a quarter of a
// GPT-2 inference step.
enum class Flat : uint8_t { Same, ScalarA, ScalarB, Scalars };
using FlatLoop = void (*)(Flat, const std::byte*, const std::byte*, std::byte*, int64_t);

template <typename T, typename R, typename Op>
void flatLoop(Flat kind, const std::byte* a, const std::byte* b, std::byte* y, int64_t n) {
  const T* pa = reinterpret_cast<const T*>(a);
  const T* pb = reinterpret_cast<const T*>(b);
  R* py = reinterpret_cast<R*>(y);
  if (kind == Flat::ScalarA) {
    const T u = pa[0];
    for (int64_t i = 0; i < n; ++i) py[i] = Op{}(u, pb[i]);
  } else if (kind == Flat::ScalarB) {
    const T v = pb[0];
    for (int64_t i = 0; i < n; ++i) py[i] = Op{}(pa[i], v);
  } else if (kind == Flat::Same) {
    for (int64_t i = 0; i < n; ++i) py[i] = Op{}(pa[i], pb[i]);
  } else {
    const R r = Op{}(pa[0], pb[0]);
    for (int64_t i = 0; i < n; ++i) py[i] = r;
  }
}

struct BinaryLoops {
  BinaryLoop general = nullptr;
  FlatLoop flat = nullptr;
};
template <typename T, typename Op>
constexpr BinaryLoops arith(Op) {
  return {&binaryLoop<T, T, Op>, &flatLoop<T, T, Op>};
}
template <typename T, typename Op>
constexpr BinaryLoops compare(Op) {
  return {&binaryLoop<T, bool, Op>, &flatLoop<T, bool, Op>};
}

// Integer ops follow ONNX through runtime/IntArith.h: wrapping, no trap at
// INT_MIN / -1 or % -1, division by zero gives 0, pow by squaring.
template <typename T>
T divide(T u, T v) {
  if constexpr (std::is_floating_point_v<T>) return u / v;
  else return onnxDiv(u, v);
}
template <typename T>
T fmodOf(T u, T v) {
  if constexpr (std::is_floating_point_v<T>) return static_cast<T>(std::fmod(u, v));
  else return onnxFmod(u, v);
}
template <typename T>
T modOf(T u, T v) {  // the sign of the divisor, as Python's %
  if constexpr (std::is_floating_point_v<T>) {
    T r = std::fmod(u, v);
    return r != 0 && ((r < 0) != (v < 0)) ? r + v : r;
  } else {
    return onnxMod(u, v);
  }
}
template <typename T>
T powOf(T u, T v) {
  if constexpr (std::is_floating_point_v<T>) return static_cast<T>(std::pow(static_cast<double>(u), static_cast<double>(v)));
  else return onnxPow(u, v);
}

// The loop of `fn` on operands of type T; null if fn does not take T.
template <typename T>
BinaryLoops binaryLoopFor(const std::string& fn) {
  [[maybe_unused]] constexpr bool isFloat = std::is_floating_point_v<T>;
  if (fn == "equal") return compare<T>([](T u, T v) { return u == v; });
  if (fn == "less") return compare<T>([](T u, T v) { return u < v; });
  if (fn == "greater") return compare<T>([](T u, T v) { return u > v; });
  if (fn == "less_equal") return compare<T>([](T u, T v) { return u <= v; });
  if (fn == "greater_equal") return compare<T>([](T u, T v) { return u >= v; });
  if constexpr (std::is_same_v<T, bool>) {
    if (fn == "and") return compare<T>([](bool u, bool v) { return u && v; });
    if (fn == "or") return compare<T>([](bool u, bool v) { return u || v; });
    if (fn == "xor") return compare<T>([](bool u, bool v) { return u != v; });
  } else {
    if (fn == "add") return arith<T>([](T u, T v) { if constexpr (isFloat) return u + v; else return wrapAdd(u, v); });
    if (fn == "sub") return arith<T>([](T u, T v) { if constexpr (isFloat) return u - v; else return wrapSub(u, v); });
    if (fn == "mul") return arith<T>([](T u, T v) { if constexpr (isFloat) return u * v; else return wrapMul(u, v); });
    if (fn == "max") return arith<T>([](T u, T v) { return u >= v || (isFloat && u != u) ? u : v; });
    if (fn == "min") return arith<T>([](T u, T v) { return u <= v || (isFloat && u != u) ? u : v; });
    if (fn == "pow") return arith<T>([](T u, T v) { return powOf(u, v); });
    if (fn == "div") return arith<T>([](T u, T v) { return divide(u, v); });
    if (fn == "fmod") return arith<T>([](T u, T v) { return fmodOf(u, v); });
    if (fn == "mod") return arith<T>([](T u, T v) { return modOf(u, v); });
  }
  return {};
}

// Rows shorter than this go through the odometer: a run's setup would cost more.
constexpr int64_t kMinRun = 8;

class BinaryKernel final : public Kernel {
 public:
  BinaryKernel(const KernelArgs& a, BinaryLoops loops)
      : Kernel(a.node),
        m_a(a.in[0]),
        m_b(a.in[1]),
        m_y(a.out[0]),
        m_loops(loops),
        m_bc(Broadcast<2>::ofShapes(a.out[0]->shape(), {a.in[0]->shape(), a.in[1]->shape()})),
        m_rows(RowBroadcast<2>::ofShapes(a.out[0]->shape(), {a.in[0]->shape(), a.in[1]->shape()})),
        m_flat(flatKind(m_rows.innerStrides())),
        m_inSize(static_cast<int64_t>(ir::dtypeSize(a.in[0]->dtype()))),
        m_outSize(static_cast<int64_t>(ir::dtypeSize(a.out[0]->dtype()))) {}
  Status run(ExecContext& ctx) override {
    const std::byte *a = m_a->bytes(), *b = m_b->bytes();
    std::byte* y = m_y->bytes();
    const bool runs = m_rows.rowLength() >= kMinRun || m_y->numElements() == m_rows.rowLength();
    return ctx.pool().parallelFor(0, m_y->numElements(), kElementGrain, [&](int64_t lo, int64_t hi) {
      if (!runs) return m_loops.general(m_bc, a, b, y, lo, hi);
      m_rows.forEachRun(lo, hi, [&](int64_t i, const std::array<int64_t, 2>& o, int64_t n) {
        m_loops.flat(m_flat, a + o[0] * m_inSize, b + o[1] * m_inSize, y + i * m_outSize, n);
      });
    });
  }

 private:
  static Flat flatKind(const std::array<int64_t, 2>& inner) {
    if (inner[0] != 0 && inner[1] != 0) return Flat::Same;
    if (inner[1] != 0) return Flat::ScalarA;
    if (inner[0] != 0) return Flat::ScalarB;
    return Flat::Scalars;
  }

  const ir::Tensor *m_a, *m_b;
  ir::Tensor* m_y;
  BinaryLoops m_loops;
  Broadcast<2> m_bc;
  RowBroadcast<2> m_rows;
  Flat m_flat;
  int64_t m_inSize, m_outSize;
};

// --- where, expand, strided_slice: element copies through strides, any dtype ---

// A run of where: y[i] = c[i*SC] ? a[i*SA] : b[i*SB], strides 0 or 1 known at
// compile time so the loop vectorizes (a blend); U moves the element's bytes.
using WhereRun = void (*)(const bool*, const std::byte*, const std::byte*, std::byte*, int64_t);

template <typename U, int SC, int SA, int SB>
void whereRun(const bool* c, const std::byte* a, const std::byte* b, std::byte* y, int64_t n) {
  const U* pa = reinterpret_cast<const U*>(a);
  const U* pb = reinterpret_cast<const U*>(b);
  U* py = reinterpret_cast<U*>(y);
  for (int64_t i = 0; i < n; ++i) py[i] = c[i * SC] ? pa[i * SA] : pb[i * SB];
}

template <typename U, int SC>
WhereRun whereRunOf(int64_t sa, int64_t sb) {
  if (sa && sb) return &whereRun<U, SC, 1, 1>;
  if (sa) return &whereRun<U, SC, 1, 0>;
  if (sb) return &whereRun<U, SC, 0, 1>;
  return &whereRun<U, SC, 0, 0>;
}
template <typename U>
WhereRun whereRunOf(const std::array<int64_t, 3>& inner) {
  return inner[0] ? whereRunOf<U, 1>(inner[1], inner[2]) : whereRunOf<U, 0>(inner[1], inner[2]);
}
// Null for an element size no dtype has.
WhereRun whereRunFor(size_t elementSize, const std::array<int64_t, 3>& inner) {
  switch (elementSize) {
    case 1:
      return whereRunOf<uint8_t>(inner);
    case 4:
      return whereRunOf<uint32_t>(inner);
    case 8:
      return whereRunOf<uint64_t>(inner);
    default:
      return nullptr;
  }
}

// y[i] = pick(cond) ? a[...] : b[...] with numpy broadcasting: flat runs
// (RowBroadcast) when rows are long enough, else the odometer.
class WhereKernel final : public Kernel {
 public:
  explicit WhereKernel(const KernelArgs& a)
      : Kernel(a.node),
        m_c(a.in[0]),
        m_a(a.in[1]),
        m_b(a.in[2]),
        m_y(a.out[0]),
        m_bc(Broadcast<3>::ofShapes(a.out[0]->shape(), {a.in[0]->shape(), a.in[1]->shape(), a.in[2]->shape()})),
        m_rows(RowBroadcast<3>::ofShapes(a.out[0]->shape(), {a.in[0]->shape(), a.in[1]->shape(), a.in[2]->shape()})),
        m_es(static_cast<int64_t>(ir::dtypeSize(a.out[0]->dtype()))),
        m_run(whereRunFor(ir::dtypeSize(a.out[0]->dtype()), m_rows.innerStrides())) {}
  Status run(ExecContext& ctx) override {
    const bool runs = m_run && (m_rows.rowLength() >= kMinRun || m_y->numElements() == m_rows.rowLength());
    return ctx.pool().parallelFor(0, m_y->numElements(), kElementGrain, [&](int64_t lo, int64_t hi) {
      if (runs) {
        m_rows.forEachRun(lo, hi, [&](int64_t i, const std::array<int64_t, 3>& o, int64_t n) {
          m_run(m_c->data<bool>() + o[0], m_a->bytes() + o[1] * m_es, m_b->bytes() + o[2] * m_es,
                m_y->bytes() + i * m_es, n);
        });
        return;
      }
      const bool* pc = m_c->data<bool>();
      m_bc.forEach(lo, hi, [&](int64_t i, const std::array<int64_t, 3>& o) {
        const std::byte* src = pc[o[0]] ? m_a->bytes() + o[1] * m_es : m_b->bytes() + o[2] * m_es;
        std::memcpy(m_y->bytes() + i * m_es, src, static_cast<size_t>(m_es));
      });
    });
  }

 private:
  const ir::Tensor *m_c, *m_a, *m_b;
  ir::Tensor* m_y;
  Broadcast<3> m_bc;
  RowBroadcast<3> m_rows;
  int64_t m_es;
  WhereRun m_run;
};

// y[i] = x[base + offset(i)] for expand (broadcast strides) and strided_slice (scaled strides).
class GatherCopyKernel final : public Kernel {
 public:
  GatherCopyKernel(const KernelArgs& a, Broadcast<1> bc, int64_t base)
      : Kernel(a.node), m_x(a.in[0]), m_y(a.out[0]), m_bc(std::move(bc)), m_base(base) {}
  Status run(ExecContext& ctx) override {
    const int64_t es = static_cast<int64_t>(ir::dtypeSize(m_y->dtype()));
    return ctx.pool().parallelFor(0, m_y->numElements(), kElementGrain, [&](int64_t lo, int64_t hi) {
      m_bc.forEach(lo, hi, [&](int64_t i, const std::array<int64_t, 1>& o) {
        std::memcpy(m_y->bytes() + i * es, m_x->bytes() + (m_base + o[0]) * es, static_cast<size_t>(es));
      });
    });
  }

 private:
  const ir::Tensor* m_x;
  ir::Tensor* m_y;
  Broadcast<1> m_bc;
  int64_t m_base;
};

// --- cast ---

template <typename From>
void castFrom(const ir::Tensor& x, ir::Tensor& y) {
  const From* px = x.data<From>();
  const int64_t n = x.numElements();
  switch (y.dtype()) {
    case DType::F32: for (int64_t i = 0; i < n; ++i) y.data<float>()[i] = static_cast<float>(px[i]); break;
    case DType::I64: for (int64_t i = 0; i < n; ++i) y.data<int64_t>()[i] = static_cast<int64_t>(px[i]); break;
    case DType::I32: for (int64_t i = 0; i < n; ++i) y.data<int32_t>()[i] = static_cast<int32_t>(px[i]); break;
    case DType::Bool: for (int64_t i = 0; i < n; ++i) y.data<bool>()[i] = px[i] != From{0}; break;
  }
}

using CastFn = void (*)(const ir::Tensor&, ir::Tensor&);

class CastKernel final : public Kernel {
 public:
  CastKernel(const KernelArgs& a, CastFn cast) : Kernel(a.node), m_x(a.in[0]), m_y(a.out[0]), m_cast(cast) {}
  Status run(ExecContext&) override {
    m_cast(*m_x, *m_y);
    return {};
  }

 private:
  const ir::Tensor* m_x;
  ir::Tensor* m_y;
  CastFn m_cast;
};

}  // namespace

Made GeneralKernels::Unary(const KernelArgs& a) {
  const std::string fn = fnAttr(a.node);
  if (fn == "identity") return make<UnaryKernel>(a, UnaryMode::Copy, nullptr);
  if (fn == "not") return make<UnaryKernel>(a, UnaryMode::Not, nullptr);
  if (UnaryLoop fast = fastUnaryLoop(fn)) return make<UnaryKernel>(a, UnaryMode::Math, fast);
  for (const NamedUnary& u : kUnaryFns)
    if (u.name == fn) return make<UnaryKernel>(a, UnaryMode::Math, u.loop);
  return a.fail("unknown unary fn '" + fn + "'");
}

Made GeneralKernels::Binary(const KernelArgs& a) {
  const std::string fn = fnAttr(a.node);
  BinaryLoops loops;
  switch (a.in[0]->dtype()) {
    case DType::F32:
      loops = binaryLoopFor<float>(fn);
      break;
    case DType::I64:
      loops = binaryLoopFor<int64_t>(fn);
      break;
    case DType::I32:
      loops = binaryLoopFor<int32_t>(fn);
      break;
    case DType::Bool:
      loops = binaryLoopFor<bool>(fn);
      break;
  }
  if (!loops.general)
    return a.fail("binary fn '" + fn + "' does not take " + std::string(ir::dtypeName(a.in[0]->dtype())));
  return make<BinaryKernel>(a, loops);
}

Made GeneralKernels::Where(const KernelArgs& a) { return make<WhereKernel>(a); }

Made GeneralKernels::Cast(const KernelArgs& a) {
  CastFn cast = nullptr;
  switch (a.in[0]->dtype()) {
    case DType::F32: cast = castFrom<float>; break;
    case DType::I64: cast = castFrom<int64_t>; break;
    case DType::I32: cast = castFrom<int32_t>; break;
    case DType::Bool: cast = castFrom<bool>; break;
  }
  return make<CastKernel>(a, cast);
}

Made GeneralKernels::Expand(const KernelArgs& a) {
  return make<GatherCopyKernel>(a, Broadcast<1>::ofShapes(a.out[0]->shape(), {a.in[0]->shape()}), 0);
}

Made GeneralKernels::StridedSlice(const KernelArgs& a) {
  const auto starts = a.node.intsAttr("starts"), steps = a.node.intsAttr("steps");
  const ir::Shape& xs = a.in[0]->shape();
  const size_t rank = xs.size();
  if (starts.size() != rank || steps.size() != rank) return a.fail("starts and steps need one entry per axis");
  std::vector<int64_t> stride(rank, 1), scaled(rank);
  for (size_t d = rank; d-- > 1;) stride[d - 1] = stride[d] * xs[d];
  int64_t base = 0;
  for (size_t d = 0; d < rank; ++d) {
    scaled[d] = stride[d] * steps[d];
    base += starts[d] * stride[d];
  }
  return make<GatherCopyKernel>(a, Broadcast<1>::withStrides(a.out[0]->shape(), {std::move(scaled)}), base);
}

}  // namespace dfc::runtime::kernels
