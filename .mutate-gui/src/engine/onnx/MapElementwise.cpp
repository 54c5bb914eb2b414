// Elementwise ONNX ops: arithmetic and comparisons with numpy broadcasting,
// unary math and activations, Where, Cast, Identity, Dropout (inference).
#include <cmath>
#include <limits>

#include "onnx/ImportContext.h"

namespace dfc::onnx {
namespace {

using ir::DType;
using ir::OpKind;
using ir::ValueId;

// Same-shape f32 add/sub/mul use the IR's original ops (they have gradients).
Expected<ValueId> arith(ImportContext& c, const std::string& fn, ValueId a, ValueId b) {
  if (c.type(a) == c.type(b) && c.type(a).dtype == DType::F32) {
    if (fn == "add") return c.emit(OpKind::Add, {a, b});
    if (fn == "sub") return c.emit(OpKind::Sub, {a, b});
    if (fn == "mul") return c.emit(OpKind::Mul, {a, b});
  }
  return c.binary(fn, a, b);
}

MapFn binaryOp(std::string fn) {
  return [fn](ImportContext& c) -> Status {
    DFC_TRY_ASSIGN(a, c.requireInput(0));
    DFC_TRY_ASSIGN(b, c.requireInput(1));
    DFC_TRY_ASSIGN(y, arith(c, fn, a, b));
    c.setOutput(0, y);
    return {};
  };
}

// Max/Min/Sum/Mean: variadic, folded left.
MapFn variadicOp(std::string fn, bool mean) {
  return [fn, mean](ImportContext& c) -> Status {
    DFC_TRY_ASSIGN(acc, c.requireInput(0));
    for (int i = 1; i < c.numInputs(); ++i) {
      DFC_TRY_ASSIGN(b, c.requireInput(i));
      DFC_TRY_ASSIGN(next, arith(c, fn, acc, b));
      acc = next;
    }
    if (mean && c.numInputs() > 1) {
      if (c.type(acc).dtype != DType::F32) return c.error("Mean needs float inputs");
      DFC_TRY_ASSIGN(m, c.binary("div", acc, c.scalarF32(static_cast<float>(c.numInputs()))));
      acc = m;
    }
    if (c.numInputs() == 1) {
      DFC_TRY_ASSIGN(copy, c.unary("identity", acc));
      acc = copy;
    }
    c.setOutput(0, acc);
    return {};
  };
}

MapFn unaryOp(std::string fn, double alpha = 0, double beta = 0, const char* alphaAttr = nullptr,
              const char* betaAttr = nullptr) {
  return [=](ImportContext& c) -> Status {
    DFC_TRY_ASSIGN(x, c.requireInput(0));
    DFC_TRY(needFloat(c, x));
    double a = alphaAttr ? c.attrFloat(alphaAttr, alpha) : alpha;
    double b = betaAttr ? c.attrFloat(betaAttr, beta) : beta;
    Expected<ValueId> y = fn == "relu" ? c.emit(OpKind::Relu, {x}) : c.unary(fn, x, a, b);
    if (!y) return y.error();
    c.setOutput(0, *y);
    return {};
  };
}

Status mapPow(ImportContext& c) {
  DFC_TRY_ASSIGN(a, c.requireInput(0));
  DFC_TRY_ASSIGN(b, c.requireInput(1));
  DType da = c.type(a).dtype, db = c.type(b).dtype;
  if (da != db && db == DType::F32) {  // an integer base, a float exponent: pow in f32, truncated to the base's type
    DFC_TRY_ASSIGN(af, c.cast(a, DType::F32));
    DFC_TRY_ASSIGN(p, c.binary("pow", af, b));
    DFC_TRY_ASSIGN(y, c.cast(p, da));
    c.setOutput(0, y);
    return {};
  }
  if (da != db) {
    if (da != DType::F32) return c.error("Pow of an integer base with a " + std::string(ir::dtypeName(db)) + " exponent is not supported");
    DFC_TRY_ASSIGN(bc, c.cast(b, da));
    b = bc;
  }
  DFC_TRY_ASSIGN(y, c.binary("pow", a, b));
  c.setOutput(0, y);
  return {};
}

Status mapMod(ImportContext& c) {
  DFC_TRY_ASSIGN(a, c.requireInput(0));
  DFC_TRY_ASSIGN(b, c.requireInput(1));
  bool fmod = c.attrInt("fmod", 0) != 0;
  if (!fmod && c.type(a).dtype == DType::F32) return c.error("Mod with fmod=0 needs integer inputs");
  DFC_TRY_ASSIGN(y, c.binary(fmod ? "fmod" : "mod", a, b));
  c.setOutput(0, y);
  return {};
}

Status mapNot(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY_ASSIGN(y, c.unary("not", x));
  c.setOutput(0, y);
  return {};
}

// IsInf: x == +inf and/or x == -inf, as detect_positive / detect_negative ask.
Status mapIsInf(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY(needFloat(c, x));
  const bool pos = c.attrInt("detect_positive", 1) != 0, neg = c.attrInt("detect_negative", 1) != 0;
  DFC_TRY_ASSIGN(isPos, c.binary("equal", x, c.scalarF32(INFINITY)));
  DFC_TRY_ASSIGN(isNeg, c.binary("equal", x, c.scalarF32(-INFINITY)));
  if (pos != neg) {
    c.setOutput(0, pos ? isPos : isNeg);
    return {};
  }
  DFC_TRY_ASSIGN(y, c.binary(pos ? "or" : "and", isPos, isNeg));  // neither: and, never true
  c.setOutput(0, y);
  return {};
}

// IsNaN: x != x.
Status mapIsNaN(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY(needFloat(c, x));
  DFC_TRY_ASSIGN(same, c.binary("equal", x, x));
  DFC_TRY_ASSIGN(y, c.unary("not", same));
  c.setOutput(0, y);
  return {};
}

// BitShift of unsigned integers: x * 2^y (LEFT) or x / 2^y (RIGHT); the
// result wraps into x's type where the node leaves it.
Status mapBitShift(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY_ASSIGN(y, c.requireInput(1));
  if (c.type(x).dtype != DType::I64 || c.type(y).dtype != DType::I64) return c.error("needs unsigned integer inputs");
  const std::string direction = c.attrString("direction", "");
  if (direction != "LEFT" && direction != "RIGHT") return c.error("direction must be LEFT or RIGHT");
  ir::Tensor two(ir::TensorType{DType::I64, {}});
  two.data<int64_t>()[0] = 2;
  DFC_TRY_ASSIGN(factor, c.binary("pow", c.constant(std::move(two), "two"), y));
  DFC_TRY_ASSIGN(out, c.binary(direction == "LEFT" ? "mul" : "div", x, factor));
  c.setOutput(0, out);
  return {};
}

// Integers: max(x, min) then min(., max) in their own type; no bound: x itself.
Status clipIntegers(ImportContext& c, ValueId x, const ValueId (&bounds)[2]) {
  ValueId y = x;
  for (int i = 0; i < 2; ++i) {
    if (bounds[i] == ir::kNoValue) continue;
    if (c.type(bounds[i]).numElements() != 1) return c.error("min/max must be scalars");
    DFC_TRY_ASSIGN(bound, c.cast(bounds[i], c.type(x).dtype));
    DFC_TRY_ASSIGN(scalar, c.rank(bound) == 0 ? Expected<ValueId>(bound) : c.reshape(bound, {}));
    DFC_TRY_ASSIGN(bounded, c.binary(i == 0 ? "max" : "min", y, scalar));
    y = bounded;
  }
  c.setOutput(0, y);
  return {};
}

// Constant bounds fold into one clip; with a bound computed at run time (a
// graph input) it is max(x, min) then min(., max), so min > max gives max.
Status mapClip(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  const ValueId bounds[2] = {c.input(1), c.input(2)};
  if (c.type(x).dtype == DType::I64 || c.type(x).dtype == DType::I32) return clipIntegers(c, x, bounds);
  DFC_TRY(needFloat(c, x));
  bool runtimeBound = false;
  for (ValueId v : bounds) {
    if (v == ir::kNoValue) continue;
    if (c.shape(v) != ir::Shape{} && c.shape(v) != ir::Shape{1}) return c.error("min/max must be scalars");
    DFC_TRY(needFloat(c, v));
    runtimeBound = runtimeBound || !c.constData(v);
  }
  ValueId y = x;
  if (runtimeBound) {
    for (int i = 0; i < 2; ++i) {
      if (bounds[i] == ir::kNoValue) continue;
      DFC_TRY_ASSIGN(bounded, c.binary(i == 0 ? "max" : "min", y, bounds[i]));
      y = bounded;
    }
  } else {
    double lim[2] = {-std::numeric_limits<float>::max(), std::numeric_limits<float>::max()};
    for (int i = 0; i < 2; ++i) {
      if (bounds[i] == ir::kNoValue) continue;
      DFC_TRY_ASSIGN(vals, c.constFloats(bounds[i], i == 0 ? "min" : "max"));
      lim[i] = vals[0];
    }
    DFC_TRY_ASSIGN(clipped, c.unary("clip", x, lim[0], lim[1]));
    y = clipped;
  }
  if (c.shape(y) != c.shape(x)) return c.error("min/max do not broadcast to the input");
  c.setOutput(0, y);
  return {};
}

Status mapPRelu(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY_ASSIGN(slope, c.requireInput(1));
  DFC_TRY(needFloat(c, x));
  DFC_TRY_ASSIGN(neg, c.binary("mul", x, slope));
  DFC_TRY_ASSIGN(cond, c.binary("less", x, c.scalarF32(0.0f)));
  // where() broadcasts: the output takes the broadcast of x and slope.
  DFC_TRY_ASSIGN(y, c.emit(OpKind::Where, {cond, neg, x}));
  if (c.shape(y) != c.shape(neg)) return c.error("slope does not broadcast to the input");
  c.setOutput(0, y);
  return {};
}

Status mapWhere(ImportContext& c) {
  DFC_TRY_ASSIGN(cond, c.requireInput(0));
  DFC_TRY_ASSIGN(a, c.requireInput(1));
  DFC_TRY_ASSIGN(b, c.requireInput(2));
  DFC_TRY_ASSIGN(y, c.emit(OpKind::Where, {cond, a, b}));
  c.setOutput(0, y);
  return {};
}

Status mapCast(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DType to{};
  if (!dtypeFromOnnx(static_cast<int>(c.attrInt("to", 0)), to))
    return c.error("cast to " + onnxTypeName(static_cast<int>(c.attrInt("to", 0))) + " is not supported");
  DFC_TRY_ASSIGN(y, c.type(x).dtype == to ? c.unary("identity", x) : c.cast(x, to));
  c.setOutput(0, y);
  return {};
}

Status mapCastLike(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  DFC_TRY_ASSIGN(like, c.requireInput(1));
  DFC_TRY_ASSIGN(y, c.type(x).dtype == c.type(like).dtype ? c.unary("identity", x) : c.cast(x, c.type(like).dtype));
  c.setOutput(0, y);
  return {};
}

Status mapIdentity(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  c.setOutput(0, x);
  return {};
}

Status mapDropout(ImportContext& c) {
  DFC_TRY_ASSIGN(x, c.requireInput(0));
  if (ValueId t = c.input(2); t != ir::kNoValue) {
    // A bool scalar (what exporters write) or a number: only "false" can be imported.
    const ir::Tensor* data = c.constData(t);
    bool training = true;
    if (data && data->numElements() == 1 && data->dtype() == DType::Bool) training = data->data<bool>()[0];
    else if (auto mode = c.constFloats(t, "training_mode"); mode && mode->size() == 1) training = (*mode)[0] != 0;
    // Training-mode dropout of ratio 0 keeps everything (what torchvision's swin_t exports).
    bool zeroRatio = false;
    if (ValueId r = c.input(1); r != ir::kNoValue)
      if (auto ratio = c.constFloats(r, "ratio"); ratio && ratio->size() == 1) zeroRatio = (*ratio)[0] == 0;
    if (training && !zeroRatio) return c.error("training_mode dropout is not supported (inference only)");
  }
  c.setOutput(0, x);
  if (c.outputWanted(1)) {
    ir::Tensor mask(ir::TensorType{DType::Bool, c.shape(x)});
    for (bool& b : mask.span<bool>()) b = true;
    c.setOutput(1, c.constant(std::move(mask), "mask"));
  }
  return {};
}

}  // namespace

void registerElementwiseOps(OpTable& t) {
  for (auto [onnx, fn] : std::vector<std::pair<std::string, std::string>>{
           {"Add", "add"}, {"Sub", "sub"}, {"Mul", "mul"}, {"Div", "div"}, {"Equal", "equal"}, {"Less", "less"},
           {"Greater", "greater"}, {"LessOrEqual", "less_equal"}, {"GreaterOrEqual", "greater_equal"},
           {"And", "and"}, {"Or", "or"}, {"Xor", "xor"}})
    t[onnx] = binaryOp(fn);
  t["Max"] = variadicOp("max", false);
  t["Min"] = variadicOp("min", false);
  t["Sum"] = variadicOp("add", false);
  t["Mean"] = variadicOp("add", true);
  t["Pow"] = mapPow;
  t["Mod"] = mapMod;
  t["Not"] = mapNot;
  for (auto [onnx, fn] : std::vector<std::pair<std::string, std::string>>{
           {"Sqrt", "sqrt"}, {"Exp", "exp"}, {"Log", "log"}, {"Tanh", "tanh"}, {"Erf", "erf"}, {"Neg", "neg"},
           {"Reciprocal", "reciprocal"}, {"Abs", "abs"}, {"Sigmoid", "sigmoid"}, {"Relu", "relu"},
           {"HardSwish", "hard_swish"}, {"Softplus", "softplus"}, {"Softsign", "softsign"}, {"Floor", "floor"},
           {"Ceil", "ceil"}, {"Round", "round"}, {"Sign", "sign"}, {"Sin", "sin"}, {"Cos", "cos"}, {"Tan", "tan"},
           {"Asin", "asin"}, {"Acos", "acos"}, {"Atan", "atan"}, {"Sinh", "sinh"}, {"Cosh", "cosh"},
           {"Asinh", "asinh"}, {"Acosh", "acosh"}, {"Atanh", "atanh"}})
    t[onnx] = unaryOp(fn);
  t["LeakyRelu"] = unaryOp("leaky_relu", 0.01, 0, "alpha");
  t["Elu"] = unaryOp("elu", 1.0, 0, "alpha");
  t["Celu"] = unaryOp("celu", 1.0, 0, "alpha");
  t["Selu"] = unaryOp("selu", 1.67326319217681884765625, 1.05070102214813232421875, "alpha", "gamma");
  t["HardSigmoid"] = unaryOp("hard_sigmoid", 0.2, 0.5, "alpha", "beta");
  t["ThresholdedRelu"] = unaryOp("thresholded_relu", 1.0, 0, "alpha");
  t["Shrink"] = unaryOp("shrink", 0.5, 0.0, "lambd", "bias");
  t["Clip"] = mapClip;
  t["IsInf"] = mapIsInf;
  t["IsNaN"] = mapIsNaN;
  t["BitShift"] = mapBitShift;
  t["PRelu"] = mapPRelu;
  t["Where"] = mapWhere;
  t["Cast"] = mapCast;
  t["CastLike"] = mapCastLike;
  t["Identity"] = mapIdentity;
  t["Dropout"] = mapDropout;
}

}  // namespace dfc::onnx
