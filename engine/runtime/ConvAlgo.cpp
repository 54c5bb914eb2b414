#include "runtime/ConvAlgo.h"

#include <algorithm>
#include <array>
#include <map>

#include "runtime/kernels/OneDnnConv.h"
#include "runtime/kernels/Pointwise.h"
#include "runtime/kernels/StemConv.h"

namespace dfc::runtime {

bool pointwiseTakesEveryPlane() {
  static const bool amd = __builtin_cpu_is("amd");
  return amd;
}

namespace {

constexpr std::array<std::string_view, 9> kAlgoNames{"gemm",      "winograd2", "winograd4", "onednn",         "direct",
                                                     "depthwise", "stem",      "pointwise", "onednn-winograd"};

// The crossover, modelled: each algorithm's multiplies per pair of channels
// (GEMM 9 per output pixel; F(m x m) (m+2)^2 per m x m tile, edge tiles
// whole) times an overhead for its transforms and narrower GEMMs that falls
// with the channel count, 1 + kTransformChannels / min(in, out). The constant
// is calibrated by bench_winograd on this machine (ResNet-18's layers: F(2x2)
// runs 1.4x faster than GEMM at 64 channels where it saves 2.25x of the
// multiplies, 1.7-1.9x at 256-512; F(4x4) 2.0-2.7x where it saves 3-4x).
constexpr double kTransformChannels = 32;

ConvAlgoChoice autoChoice(const ConvShape& s) {
  const int64_t in = s.pass == ConvPassKind::GradInput ? s.o : s.c;
  const int64_t out = s.pass == ConvPassKind::GradInput ? s.c : s.o;
  const double overhead = 1 + kTransformChannels / static_cast<double>(std::max<int64_t>(1, std::min(in, out)));
  auto tiles = [&](int64_t m) { return static_cast<double>(((s.oh + m - 1) / m) * ((s.ow + m - 1) / m)); };
  const double gemm = 9.0 * static_cast<double>(s.oh * s.ow), f2 = 16 * tiles(2) * overhead, f4 = 36 * tiles(4) * overhead;
  if (gemm <= std::min(f2, f4)) return {ConvAlgo::Gemm, "auto: GEMM needs the fewest modelled multiplies"};
  if (f4 < f2) return {ConvAlgo::Winograd4, "auto: F(4x4) needs the fewest modelled multiplies"};
  return {ConvAlgo::Winograd2, "auto: F(2x2) needs the fewest modelled multiplies"};
}

// The channels the running convolution reduces over.
int64_t reductionChannels(const ConvShape& s) { return s.pass == ConvPassKind::GradInput ? s.o : s.c; }

bool empty(const ConvShape& s) { return s.n <= 0 || s.c <= 0 || s.o <= 0 || s.oh <= 0 || s.ow <= 0; }

// A 1x1 stride-1 unpadded convolution is one GEMM straight on the NCHW input.
bool pointwise(const ConvShape& s) {
  return s.kh == 1 && s.kw == 1 && s.sh == 1 && s.sw == 1 && s.ph == 0 && s.pw == 0 && generalConvReason(s) == nullptr;
}

// A 1x1 unpadded convolution with a stride (a ResNet's downsample): im2col
// only subsamples the input, and one GEMM does the rest. ResNet-50 b1 at one
// thread, its four downsample convs: 6.8-7.0 ms a step on oneDNN (which
// reorders the whole unsampled input), 6.2-6.4 ms so.
bool stridedPointwise(const ConvShape& s) {
  return s.kh == 1 && s.kw == 1 && (s.sh > 1 || s.sw > 1) && s.ph == 0 && s.pw == 0 && generalConvReason(s) == nullptr;
}

// F(4x4) is refused past its error bound (kWinograd4MaxChannels).
ConvAlgoChoice capF4(ConvAlgoChoice choice, const ConvShape& s) {
  if (choice.algo == ConvAlgo::Winograd4 && reductionChannels(s) > kWinograd4MaxChannels)
    return {ConvAlgo::Winograd2, "F(4x4) refused: over 2048 input channels (error bound)"};
  return choice;
}

// One input channel per group: the depthwise kernel (kernels/Depthwise.h).
bool depthwise(const ConvShape& s) { return s.group > 1 && s.group == s.c && s.o % s.c == 0; }

// MobileNetV2 at one thread: its 17 depthwise convs (3x3, stride 1 and 2,
// planes 112 down to 7) took 4.0 ms of a 10.3 ms step on oneDNN, which
// reorders each input and output to its blocked layout.
ConvAlgoChoice generalChoice(const ConvShape& s, const char* why, ConvAlgoRequest request) {
  if (empty(s)) return {ConvAlgo::Direct, "empty"};
  if (request == ConvAlgoRequest::Gemm) return {ConvAlgo::Direct, "--conv-algo gemm: no GEMM form, the direct loop"};
  if (request == ConvAlgoRequest::Auto && depthwise(s))
    return {ConvAlgo::Depthwise, "auto: depthwise, the NCHW depthwise kernel (no layout reorders)"};
  return {ConvAlgo::OneDnn, why};
}

// An image's first conv (MobileNet, EfficientNet): 3x3, stride 2, on its few
// channels, which the stem kernel runs straight on NCHW (kernels/StemConv.h).
bool stem(const ConvShape& s) {
  return s.kh == 3 && s.kw == 3 && s.sh == 2 && s.sw == 2 && s.ph >= 0 && s.ph <= 1 && s.pw >= 0 && s.pw <= 1 &&
         s.c <= kernels::kStemMaxChannels && kernels::stemConvAvailable();
}

// Where the pointwise kernel beat the GEMM in bench_pointwise (MobileNetV2,
// EfficientNet-B0 and ResNet-50 1x1 layers at batch 1, one thread): a batch
// of at most 64 pixels (one 7 x 7 image: x1.1-1.25; at batch 8 the GEMM runs
// the images side by side and ResNet-50's 7 x 7 layers were x0.9 on the
// kernel), and expansions from at most 128 channels (x1.07-1.7, x1.2-1.3 at
// batch 8); the GEMM keeps the projections onto fewer channels over larger
// planes (x0.85-0.97 on the kernel) and planes under one vector of pixels
// (EfficientNet's squeeze-excite 1x1 planes, matrix-vector products: x0.43).
// That was Intel (Sapphire Rapids). On AMD (Zen 4) the kernel wins the
// projections too: x1.31 on 32@112>16, x1.01-1.07 from 144, 192, 240, 384,
// 576 and 672 channels (bench_pointwise), and in the network MobileNetV2's
// 32@112>16 took 0.27 ms on oneDNN's sgemm (small M) against ONNX Runtime's
// 0.12; only ResNet-50's 256@56>64 was x0.92, and those join oneDNN anyway.
constexpr int64_t kPointwiseMinPlane = 16, kPointwiseSmallPlane = 64, kPointwiseMaxExpandChannels = 128;
bool pointwiseKernelWins(const ConvShape& s) {
  const int64_t plane = s.oh * s.ow;
  if (plane < kPointwiseMinPlane) return false;
  if (pointwiseTakesEveryPlane()) return true;
  return s.n * plane <= kPointwiseSmallPlane || (s.c <= kPointwiseMaxExpandChannels && s.o > s.c);
}

// Winograd's GEMMs read (m+2)^2 / 9 times the weights (4x for F(4x4)) once
// per call: with few tiles (the batch's F(4x4) tiles) that stream costs more
// than the multiplies saved. ResNet-18 inference, one thread: at batch 1
// (196, 49, 16, 4 tiles in layers 1-4) Winograd where the multiply model
// picks it took 40 ms a step against 25 ms with every conv on oneDNN; at
// batch 8 (1568, 392, 128, 32 tiles) 264 ms against 315 ms.
constexpr int64_t kWinogradMinTiles = 128;

// A forward conv2d under auto: a 1x1 stride-1 conv is a plain GEMM with no
// im2col (a strided one a GEMM on its subsampled input); Winograd keeps the 3x3 stride-1 layers with tiles enough where
// the model above picks it; the rest (strided, 7x7, few tiles) runs on oneDNN's direct convolution, faster than im2col
// + GEMM on every ResNet-18 layer (all convs on oneDNN 25 ms a step at batch 1 against 33 ms on GEMM).
ConvAlgoChoice autoForward(const ConvShape& s) {
  if (oneDnnWinogradWins(s))
    return {ConvAlgo::OneDnnWinograd, "auto: 3x3 stride 1 on 16+ channels, oneDNN's Winograd (F(2x2) or F(4x4))"};
  if (pointwise(s) && kernels::pointwiseConvAvailable() && pointwiseKernelWins(s))
    return {ConvAlgo::Pointwise, "auto: 1x1, the NCHW pointwise kernel (weights packed once)"};
  if (pointwise(s)) return {ConvAlgo::Gemm, "auto: 1x1, one GEMM on the input (no im2col)"};
  if (stridedPointwise(s)) return {ConvAlgo::Gemm, "auto: 1x1 strided, one GEMM on the subsampled input"};
  const int64_t tiles = s.n * ((s.oh + 3) / 4) * ((s.ow + 3) / 4);
  if (!winogradIneligibility(s) && tiles >= kWinogradMinTiles) {
    ConvAlgoChoice c = autoChoice(s);
    if (c.algo != ConvAlgo::Gemm) return c;
  }
  return {ConvAlgo::OneDnn, "auto: oneDNN direct (no 1x1 GEMM or Winograd form that wins)"};
}

}  // namespace

// oneDNN's Winograd (jit_wino_4x3 / jit_fp32_wino_2x3, AVX-512; bench_winograd) against its
// direct conv (brgconv), one thread, ms: ResNet's 3x3s at batch 1 64@56 1.02
// against 1.95, 128@28 0.57 against 1.88, 256@14 0.91 against 1.89, 512@7
// 1.18 against 1.73 (at batch 8 5.6-6.7 against 13.3-15.8, where ours took
// 9.8-16.4); it lost on 3 -> 16 channels at 112 x 112 (0.47 against 0.11),
// 8@56 (0.095 against 0.067) and 512@2 (0.30 against 0.12), and won from
// 16 channels (16@56 0.11 against 0.13) and 4 x 4 planes (256@4 0.081
// against 0.115). Its error against double sums stayed under 2.7e-6 of the
// output's magnitude up to 2048 channels. It takes pads of 0 or 1 only, and
// ReLU as its only activation post-op (the kernel applies the others after
// it, kernels/Conv.cpp).
constexpr int64_t kOneDnnWinogradMinChannels = 16, kOneDnnWinogradMinSide = 4;
bool oneDnnWinogradWins(const ConvShape& s) {
  if (s.pass != ConvPassKind::Forward || !s.stableWeights || generalConvReason(s) || winogradIneligibility(s))
    return false;
  if (s.ph > 1 || s.pw > 1 || s.c < kOneDnnWinogradMinChannels) return false;
  return s.oh >= kOneDnnWinogradMinSide && s.ow >= kOneDnnWinogradMinSide && kernels::oneDnnWinogradAvailable();
}

std::string_view convAlgoName(ConvAlgo algo) { return kAlgoNames[static_cast<size_t>(algo)]; }

std::string_view convAlgoRequestName(ConvAlgoRequest r) {
  if (r == ConvAlgoRequest::Auto) return "auto";
  return kAlgoNames[static_cast<size_t>(r) - 1];
}

Expected<ConvAlgoRequest> parseConvAlgoRequest(const std::string& flag, const std::string& text) {
  for (auto r : {ConvAlgoRequest::Auto, ConvAlgoRequest::Gemm, ConvAlgoRequest::Winograd2, ConvAlgoRequest::Winograd4,
                 ConvAlgoRequest::OneDnn})
    if (text == convAlgoRequestName(r)) return r;
  return makeError(flag + " '" + text + "': expected auto, gemm, winograd2, winograd4 or onednn");
}

const char* generalConvReason(const ConvShape& s) {
  if (s.group != 1) return s.group == s.c ? "depthwise" : "grouped";
  if (s.dh != 1 || s.dw != 1) return "dilated";
  if ((s.pb >= 0 && s.pb != s.ph) || (s.pr >= 0 && s.pr != s.pw)) return "asymmetric pads";
  return s.general ? "general conv op" : nullptr;
}

const char* winogradIneligibility(const ConvShape& s) {
  if (s.pass == ConvPassKind::GradWeight) return "weight gradient (GEMM only)";
  if (s.kh != 3 || s.kw != 3) return "kernel not 3x3";
  if (s.sh != 1 || s.sw != 1) return "stride not 1";
  if (s.ph < 0 || s.pw < 0) return "negative padding";
  if (s.pass == ConvPassKind::GradInput && (s.ph > 2 || s.pw > 2)) return "input gradient with padding above 2";
  if (s.n <= 0 || s.c <= 0 || s.o <= 0 || s.oh <= 0 || s.ow <= 0) return "empty";
  return nullptr;
}

ConvAlgoChoice explainConvAlgo(const ConvShape& s, ConvAlgoRequest request) {
  if (const char* why = generalConvReason(s)) return generalChoice(s, why, request);
  const bool forward = s.pass == ConvPassKind::Forward && !empty(s);
  if (forward && request == ConvAlgoRequest::OneDnn) return {ConvAlgo::OneDnn, "requested"};
  if (forward && request == ConvAlgoRequest::Auto && stem(s))
    return {ConvAlgo::Stem, "auto: 3x3 stride 2 on few channels, the NCHW stem kernel"};
  if (forward && request == ConvAlgoRequest::Auto && s.stableWeights) return capF4(autoForward(s), s);
  if (const char* why = winogradIneligibility(s)) return {ConvAlgo::Gemm, why};
  if (request == ConvAlgoRequest::Gemm) return {ConvAlgo::Gemm, "--conv-algo gemm"};
  if (request == ConvAlgoRequest::OneDnn) return {ConvAlgo::Gemm, "oneDNN runs forward convolutions only"};
  ConvAlgoChoice choice = request == ConvAlgoRequest::Auto
                              ? autoChoice(s)
                              : ConvAlgoChoice{static_cast<ConvAlgo>(static_cast<int>(request) - 1), "requested"};
  return capF4(choice, s);
}

ConvAlgo chooseConvAlgo(const ConvShape& s, ConvAlgoRequest request) { return explainConvAlgo(s, request).algo; }

namespace {

// The general `conv` op: ONNX attributes strides, pads (begin, begin, end, end), dilations, group.
std::optional<ConvShape> generalConvShapeOf(const ir::Graph& graph, const ir::Node& node) {
  const ir::Shape &xs = graph.value(node.inputs[0]).type.shape, &ws = graph.value(node.inputs[1]).type.shape;
  const ir::Shape& ys = graph.value(node.outputs[0]).type.shape;
  if (xs.size() != 4 || ws.size() != 4 || ys.size() != 4) return std::nullopt;
  auto ints = [&](const char* key, std::vector<int64_t> fallback) {
    auto v = node.intsAttr(key);
    return v.size() == fallback.size() ? v : fallback;
  };
  const auto stride = ints("strides", {1, 1}), pad = ints("pads", {0, 0, 0, 0}), dilation = ints("dilations", {1, 1});
  ConvShape s;
  s.n = xs[0], s.c = xs[1], s.h = xs[2], s.w = xs[3];
  s.o = ws[0], s.kh = ws[2], s.kw = ws[3];
  s.sh = stride[0], s.sw = stride[1], s.ph = pad[0], s.pw = pad[1], s.pb = pad[2], s.pr = pad[3];
  s.dh = dilation[0], s.dw = dilation[1], s.group = node.intAttr("group", 1);
  s.oh = ys[2], s.ow = ys[3];
  s.general = true;
  return s;
}

}  // namespace

// What the executor marks stable (Kernel::markStableInput): a Param or Const no state update writes.
bool stableValue(const ir::Graph& graph, ir::ValueId v) {
  const ir::ValueKind kind = graph.value(v).kind;
  if (kind != ir::ValueKind::Param && kind != ir::ValueKind::Const) return false;
  return std::none_of(graph.updates.begin(), graph.updates.end(),
                      [&](const ir::StateUpdate& u) { return u.target == v; });
}

std::optional<ConvShape> convShapeOf(const ir::Graph& graph, const ir::Node& node) {
  ConvShape s;
  ir::ValueId x, w, y;  // the forward's image, weight and output values
  if (node.inputs.size() != 2 || node.outputs.size() != 1) return std::nullopt;
  if (node.op == ir::OpKind::Conv2d) {
    s.pass = ConvPassKind::Forward, x = node.inputs[0], w = node.inputs[1], y = node.outputs[0];
  } else if (node.op == ir::OpKind::Conv2dGradInput) {
    s.pass = ConvPassKind::GradInput, x = node.outputs[0], w = node.inputs[1], y = node.inputs[0];
  } else if (node.op == ir::OpKind::Conv2dGradWeight) {
    s.pass = ConvPassKind::GradWeight, x = node.inputs[1], w = node.outputs[0], y = node.inputs[0];
  } else if (node.op == ir::OpKind::Conv) {
    auto general = generalConvShapeOf(graph, node);
    if (general) general->stableWeights = stableValue(graph, node.inputs[1]);
    return general;
  } else {
    return std::nullopt;
  }
  const ir::Shape &xs = graph.value(x).type.shape, &ws = graph.value(w).type.shape, &ys = graph.value(y).type.shape;
  if (xs.size() != 4 || ws.size() != 4 || ys.size() != 4) return std::nullopt;
  auto pair = [&](const char* key, int64_t fallback) {
    auto v = node.intsAttr(key);
    return v.size() == 2 ? v : std::vector<int64_t>{fallback, fallback};
  };
  const auto stride = pair("stride", 1), pad = pair("pad", 0);
  s.n = xs[0], s.c = xs[1], s.h = xs[2], s.w = xs[3];
  s.o = ws[0], s.kh = ws[2], s.kw = ws[3];
  s.sh = stride[0], s.sw = stride[1], s.ph = pad[0], s.pw = pad[1];
  s.oh = ys[2], s.ow = ys[3];
  s.stableWeights = s.pass == ConvPassKind::Forward && stableValue(graph, w);
  return s;
}

ConvAlgoChoice explainConvAlgoOf(const ConvShape& s, ir::NodeId node, ConvAlgoRequest request,
                                 const std::set<ir::NodeId>& joins) {
  if (joins.count(node))
    return {ConvAlgo::OneDnn, "auto: linked to convolutions on oneDNN, joins them (tensors held channels-last)"};
  return explainConvAlgo(s, request);
}

std::string describeConvAlgos(const ir::Graph& graph, const std::vector<ir::NodeId>& nodes, ConvAlgoRequest request,
                              const std::set<ir::NodeId>& joins) {
  std::map<ConvAlgo, int> counts;
  for (ir::NodeId id : nodes)
    if (auto s = convShapeOf(graph, graph.node(id))) ++counts[explainConvAlgoOf(*s, id, request, joins).algo];
  if (counts.size() == 1) return std::string(convAlgoName(counts.begin()->first));
  std::string text;
  for (auto [algo, count] : counts)
    text += (text.empty() ? "" : ", ") + std::string(convAlgoName(algo)) + " x" + std::to_string(count);
  return text;
}

}  // namespace dfc::runtime
