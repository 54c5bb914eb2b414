#include "runtime/ConvAlgo.h"

#include <algorithm>
#include <array>
#include <map>

namespace dfc::runtime {
namespace {

constexpr std::array<std::string_view, 3> kAlgoNames{"gemm", "winograd2", "winograd4"};

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

}  // namespace

std::string_view convAlgoName(ConvAlgo algo) { return kAlgoNames[static_cast<size_t>(algo)]; }

std::string_view convAlgoRequestName(ConvAlgoRequest r) {
  if (r == ConvAlgoRequest::Auto) return "auto";
  return kAlgoNames[static_cast<size_t>(r) - 1];
}

Expected<ConvAlgoRequest> parseConvAlgoRequest(const std::string& flag, const std::string& text) {
  for (auto r : {ConvAlgoRequest::Auto, ConvAlgoRequest::Gemm, ConvAlgoRequest::Winograd2, ConvAlgoRequest::Winograd4})
    if (text == convAlgoRequestName(r)) return r;
  return makeError(flag + " '" + text + "': expected auto, gemm, winograd2 or winograd4");
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
  if (const char* why = winogradIneligibility(s)) return {ConvAlgo::Gemm, why};
  if (request == ConvAlgoRequest::Gemm) return {ConvAlgo::Gemm, "--conv-algo gemm"};
  ConvAlgoChoice choice = request == ConvAlgoRequest::Auto
                              ? autoChoice(s)
                              : ConvAlgoChoice{static_cast<ConvAlgo>(static_cast<int>(request) - 1), "requested"};
  if (choice.algo == ConvAlgo::Winograd4 && reductionChannels(s) > kWinograd4MaxChannels)
    choice = {ConvAlgo::Winograd2, "F(4x4) refused: over 2048 input channels (error bound)"};
  return choice;
}

ConvAlgo chooseConvAlgo(const ConvShape& s, ConvAlgoRequest request) { return explainConvAlgo(s, request).algo; }

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
  return s;
}

std::string describeConvAlgos(const ir::Graph& graph, const std::vector<ir::NodeId>& nodes, ConvAlgoRequest request) {
  std::map<ConvAlgo, int> counts;
  for (ir::NodeId id : nodes)
    if (auto s = convShapeOf(graph, graph.node(id))) ++counts[chooseConvAlgo(*s, request)];
  if (counts.size() == 1) return std::string(convAlgoName(counts.begin()->first));
  std::string text;
  for (auto [algo, count] : counts)
    text += (text.empty() ? "" : ", ") + std::string(convAlgoName(algo)) + " x" + std::to_string(count);
  return text;
}

}  // namespace dfc::runtime
