// The ai.onnx.preview.training optimizers Adagrad, Momentum and Adam: one
// update step of n tensors, written out in elementwise ops as the operator
// definitions spell them. Inputs (R: f32 learning rate, T: int64 step count,
// then n tensors of each group); outputs: the updated groups in input order.
#include "onnx/ImportContext.h"

namespace dfc::onnx {
namespace {

using ir::DType;
using ir::OpKind;
using ir::ValueId;

// The n tensors of group `g` start at input 2 + g * n.
struct Groups {
  int64_t n = 0;
  ValueId r = ir::kNoValue, t = ir::kNoValue;
};

Expected<Groups> readGroups(ImportContext& c, int groups) {
  Groups out;
  const int tensors = c.numInputs() - 2;
  if (tensors < groups || tensors % groups != 0 || c.numOutputs() != tensors / groups * (groups - 1))
    return c.error("needs R, T, then " + std::to_string(groups) +
                   " groups of n tensors, and n tensors per updated group");
  out.n = tensors / groups;
  DFC_TRY_ASSIGN(r, c.requireInput(0));
  DFC_TRY_ASSIGN(t, c.requireInput(1));
  if (c.type(r).dtype != DType::F32 || c.type(r).numElements() != 1)
    return c.error("learning rate R must be a float scalar");
  if (c.type(t).dtype != DType::I64 || c.type(t).numElements() != 1)
    return c.error("step count T must be an int64 scalar");
  DFC_TRY_ASSIGN(rs, c.reshape(r, {}));
  DFC_TRY_ASSIGN(ts, c.reshape(t, {}));
  out.r = rs;
  out.t = ts;
  for (int i = 2; i < c.numInputs(); ++i) {
    DFC_TRY_ASSIGN(x, c.requireInput(i));
    DFC_TRY(needFloat(c, x));
  }
  return out;
}

ValueId groupInput(ImportContext& c, const Groups& g, int group, int64_t k) {
  return c.input(static_cast<int>(2 + group * g.n + k));
}

// norm_coefficient * X + G
Expected<ValueId> regularized(ImportContext& c, ValueId x, ValueId grad, double norm) {
  DFC_TRY_ASSIGN(scaled, c.binary("mul", x, c.scalarF32(static_cast<float>(norm))));
  return c.binary("add", scaled, grad);
}

// a * x + b * y, with float constants a and b.
Expected<ValueId> blend(ImportContext& c, double a, ValueId x, double b, ValueId y) {
  DFC_TRY_ASSIGN(ax, c.binary("mul", x, c.scalarF32(static_cast<float>(a))));
  DFC_TRY_ASSIGN(by, c.binary("mul", y, c.scalarF32(static_cast<float>(b))));
  return c.binary("add", ax, by);
}

// T > 0 as a bool scalar: the step-dependent factors apply from the first step on.
Expected<ValueId> stepped(ImportContext& c, const Groups& g) {
  ir::Tensor zero(ir::TensorType{DType::I64, {}});
  zero.data<int64_t>()[0] = 0;
  return c.binary("greater", g.t, c.constant(std::move(zero), "zero"));
}

// r = R / (1 + T decay); H' = H + G_r^2; X' = X - r G_r / (sqrt(H') + epsilon).
Status mapAdagrad(ImportContext& c) {
  DFC_TRY_ASSIGN(g, readGroups(c, 3));
  DFC_TRY_ASSIGN(tf, c.cast(g.t, DType::F32));
  DFC_TRY_ASSIGN(decayed, c.binary("mul", tf, c.scalarF32(static_cast<float>(c.attrFloat("decay_factor", 0)))));
  DFC_TRY_ASSIGN(denom, c.binary("add", decayed, c.scalarF32(1)));
  DFC_TRY_ASSIGN(rate, c.binary("div", g.r, denom));
  for (int64_t k = 0; k < g.n; ++k) {
    DFC_TRY_ASSIGN(gr,
                   regularized(c, groupInput(c, g, 0, k), groupInput(c, g, 1, k), c.attrFloat("norm_coefficient", 0)));
    DFC_TRY_ASSIGN(sq, c.binary("mul", gr, gr));
    DFC_TRY_ASSIGN(h, c.binary("add", groupInput(c, g, 2, k), sq));
    DFC_TRY_ASSIGN(root, c.unary("sqrt", h));
    DFC_TRY_ASSIGN(adaptive, c.binary("add", root, c.scalarF32(static_cast<float>(c.attrFloat("epsilon", 1e-6)))));
    DFC_TRY_ASSIGN(step, c.binary("div", gr, adaptive));
    DFC_TRY_ASSIGN(scaled, c.binary("mul", step, rate));
    DFC_TRY_ASSIGN(x, c.binary("sub", groupInput(c, g, 0, k), scaled));
    c.setOutput(static_cast<int>(k), x);
    c.setOutput(static_cast<int>(g.n + k), h);
  }
  return {};
}

// V' = alpha V + beta' G_r (beta' = beta once T > 0, else 1);
// standard: X' = X - R V'; nesterov: X' = X - R (G_r + alpha V').
Status mapMomentum(ImportContext& c) {
  DFC_TRY_ASSIGN(g, readGroups(c, 3));
  const std::string mode = c.attrString("mode", "standard");
  if (mode != "standard" && mode != "nesterov") return c.error("mode '" + mode + "' is not standard or nesterov");
  const double alpha = c.attrFloat("alpha", 0), beta = c.attrFloat("beta", 0);
  DFC_TRY_ASSIGN(after, stepped(c, g));
  DFC_TRY_ASSIGN(betaNow, c.emit(OpKind::Where, {after, c.scalarF32(static_cast<float>(beta)), c.scalarF32(1)}));
  for (int64_t k = 0; k < g.n; ++k) {
    DFC_TRY_ASSIGN(gr,
                   regularized(c, groupInput(c, g, 0, k), groupInput(c, g, 1, k), c.attrFloat("norm_coefficient", 0)));
    DFC_TRY_ASSIGN(pushed, c.binary("mul", gr, betaNow));
    DFC_TRY_ASSIGN(kept, c.binary("mul", groupInput(c, g, 2, k), c.scalarF32(static_cast<float>(alpha))));
    DFC_TRY_ASSIGN(v, c.binary("add", kept, pushed));
    ValueId direction = v;
    if (mode == "nesterov") {
      DFC_TRY_ASSIGN(ahead, blend(c, 1, gr, alpha, v));
      direction = ahead;
    }
    DFC_TRY_ASSIGN(scaled, c.binary("mul", direction, g.r));
    DFC_TRY_ASSIGN(x, c.binary("sub", groupInput(c, g, 0, k), scaled));
    c.setOutput(static_cast<int>(k), x);
    c.setOutput(static_cast<int>(g.n + k), v);
  }
  return {};
}

// R' = R sqrt(1 - beta^T) / (1 - alpha^T) once T > 0, else R.
Expected<ValueId> adamRate(ImportContext& c, const Groups& g, double alpha, double beta) {
  DFC_TRY_ASSIGN(tf, c.cast(g.t, DType::F32));
  DFC_TRY_ASSIGN(betaT, c.binary("pow", c.scalarF32(static_cast<float>(beta)), tf));
  DFC_TRY_ASSIGN(alphaT, c.binary("pow", c.scalarF32(static_cast<float>(alpha)), tf));
  DFC_TRY_ASSIGN(betaLeft, c.binary("sub", c.scalarF32(1), betaT));
  DFC_TRY_ASSIGN(alphaLeft, c.binary("sub", c.scalarF32(1), alphaT));
  DFC_TRY_ASSIGN(root, c.unary("sqrt", betaLeft));
  DFC_TRY_ASSIGN(ratio, c.binary("div", root, alphaLeft));
  DFC_TRY_ASSIGN(adjusted, c.binary("mul", g.r, ratio));
  DFC_TRY_ASSIGN(after, stepped(c, g));
  return c.emit(OpKind::Where, {after, adjusted, g.r});
}

// V' = alpha V + (1 - alpha) G_r; H' = beta H + (1 - beta) G_r^2;
// X' = (1 - norm_coefficient_post) (X - R' V' / (sqrt(H') + epsilon)).
Status mapAdam(ImportContext& c) {
  DFC_TRY_ASSIGN(g, readGroups(c, 4));
  const double alpha = c.attrFloat("alpha", 0.9), beta = c.attrFloat("beta", 0.999);
  DFC_TRY_ASSIGN(rate, adamRate(c, g, alpha, beta));
  for (int64_t k = 0; k < g.n; ++k) {
    DFC_TRY_ASSIGN(gr,
                   regularized(c, groupInput(c, g, 0, k), groupInput(c, g, 1, k), c.attrFloat("norm_coefficient", 0)));
    DFC_TRY_ASSIGN(v, blend(c, alpha, groupInput(c, g, 2, k), 1 - alpha, gr));
    DFC_TRY_ASSIGN(sq, c.binary("mul", gr, gr));
    DFC_TRY_ASSIGN(h, blend(c, beta, groupInput(c, g, 3, k), 1 - beta, sq));
    DFC_TRY_ASSIGN(root, c.unary("sqrt", h));
    DFC_TRY_ASSIGN(denom, c.binary("add", root, c.scalarF32(static_cast<float>(c.attrFloat("epsilon", 1e-6)))));
    DFC_TRY_ASSIGN(step, c.binary("div", v, denom));
    DFC_TRY_ASSIGN(scaled, c.binary("mul", step, rate));
    DFC_TRY_ASSIGN(moved, c.binary("sub", groupInput(c, g, 0, k), scaled));
    const double post = c.attrFloat("norm_coefficient_post", 0);
    DFC_TRY_ASSIGN(x, c.binary("mul", moved, c.scalarF32(static_cast<float>(1 - post))));
    c.setOutput(static_cast<int>(k), x);
    c.setOutput(static_cast<int>(g.n + k), v);
    c.setOutput(static_cast<int>(2 * g.n + k), h);
  }
  return {};
}

}  // namespace

void registerTrainingOps(OpTable& t) {
  t["Adagrad"] = mapAdagrad;
  t["Momentum"] = mapMomentum;
  t["Adam"] = mapAdam;
}

}  // namespace dfc::onnx
