#pragma once
// Which algorithm a 2-D convolution runs with on the host: im2col + GEMM (a
// 1x1 one straight on the input), Winograd F(2x2,3x3) / F(4x4,3x3) (Lavin &
// Gray), oneDNN's convolution primitive (kernels/OneDnnConv.h), the direct
// NCHW depthwise kernel (kernels/Depthwise.h), the pointwise kernel (a 1x1
// conv with its weights packed once, kernels/Pointwise.h), the stem kernel (a 3x3
// stride-2 conv on an image's few channels, kernels/StemConv.h), or the direct loop of the
// general `conv` op (grouped, dilated, asymmetric pads) when the user asks for
// no library convolution. The choice is a pure
// function of the convolution's shape and the user's request, so the runtime,
// `dfc inspect` and the run trace compute the same answer from the same PEF.
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ir/Graph.h"
#include "support/Error.h"

namespace dfc::runtime {

enum class ConvAlgo { Gemm, Winograd2, Winograd4, OneDnn, Direct, Depthwise, Stem, Pointwise, OneDnnWinograd };
// Runs on oneDNN's convolution primitive (direct or Winograd).
inline bool onOneDnn(ConvAlgo algo) { return algo == ConvAlgo::OneDnn || algo == ConvAlgo::OneDnnWinograd; }
// What `dfc run --conv-algo` asks for; Auto takes the calibrated crossover.
// Request k (k >= 1) asks for ConvAlgo k - 1.
enum class ConvAlgoRequest { Auto, Gemm, Winograd2, Winograd4, OneDnn };

// "gemm", "winograd2", "winograd4", "onednn", "direct", "depthwise", "stem", "pointwise", "onednn-winograd"
std::string_view convAlgoName(ConvAlgo algo);
std::string_view convAlgoRequestName(ConvAlgoRequest r);  // "auto" or an algorithm's name
// "auto|gemm|winograd2|winograd4|onednn"; errors name `flag` and list the choices.
Expected<ConvAlgoRequest> parseConvAlgoRequest(const std::string& flag, const std::string& text);

enum class ConvPassKind { Forward, GradInput, GradWeight };

// One convolution as the runtime sees it (NCHW): `in` channels of the image it
// reads (the output gradient's for GradInput), `out` channels it writes.
struct ConvShape {
  ConvPassKind pass = ConvPassKind::Forward;
  int64_t n = 0, c = 0, h = 0, w = 0;  // the forward input x [n, c, h, w]
  int64_t o = 0, kh = 0, kw = 0;       // the weight [o, c, kh, kw]
  int64_t sh = 1, sw = 1, ph = 0, pw = 0;
  int64_t oh = 0, ow = 0;              // the forward output [n, o, oh, ow]
  // The general `conv` op's extras: the weight is [o, c / group, kh, kw]; end
  // pads -1 are the begin pads (conv2d).
  int64_t dh = 1, dw = 1, group = 1, pb = -1, pr = -1;
  bool general = false;  // the `conv` op (its kernel has no GEMM or Winograd form)
  // The weight is a Param or Const no state update writes (inference): only
  // then does auto take oneDNN for a plain conv2d (its execute allocates each
  // call, and training keeps its allocation-free steady state, DESIGN §10).
  bool stableWeights = false;
};

// Why `s` needs the general convolution ("depthwise", "grouped", "dilated",
// "asymmetric pads", "general conv op"), or null for a plain conv2d.
const char* generalConvReason(const ConvShape& s);

// F(4x4,3x3)'s error is about ten times F(2x2)'s and grows with the
// reduction length (input channels x 9 taps). Measured by bench_winograd
// against a double-precision direct conv, its max error relative to the
// output's largest magnitude is 1.3-2.1e-6 at 4 channels, 5.2-7.0e-6 at 64,
// 5.4-5.7e-6 at 128, then 1.02-1.14e-5 at 256, 0.72-1.12e-5 at 512 and
// 1.07-1.14e-5 at 1024 (GEMM and F(2x2): 1-9e-7 throughout). The bound is
// kWinograd4ErrorBound; F(4x4) is refused above kWinograd4MaxChannels input
// channels of the convolution that runs (the output gradient's for
// GradInput), past which it reaches the bound, and F(2x2) runs instead, even
// when F(4x4) is asked for. (Inference 3x3s from 16 channels run on oneDNN's
// Winograd instead, under 2.7e-6: oneDnnWinogradWins.)
constexpr double kWinograd4ErrorBound = 1e-5;
constexpr int64_t kWinograd4MaxChannels = 128;

// Winograd runs 3x3, stride-1 convolutions (forward and input gradient; the
// input gradient only with padding <= 2). Why not, or null when it can.
const char* winogradIneligibility(const ConvShape& s);

struct ConvAlgoChoice {
  ConvAlgo algo = ConvAlgo::Gemm;
  const char* why = "";  // a static string: "stride not 1", "auto: output at least 8x8"
};
ConvAlgoChoice explainConvAlgo(const ConvShape& s, ConvAlgoRequest request);

// The algorithm a convolution runs with under `request`:
// - a general conv (grouped, dilated, asymmetric pads; forward only): under
//   auto a depthwise one (one input channel per group) on the depthwise
//   kernel, the rest on oneDNN; oneDNN under `onednn` and the Winograd
//   requests; the direct loop under `gemm`;
// - a forward conv2d under auto, 3x3 stride 2 pad 0 or 1 on at most
//   kStemMaxChannels input channels: the stem kernel where the CPU has
//   AVX-512 (its only form), else as below;
// - a forward conv2d: oneDNN when asked for; under auto with stable weights,
//   oneDNN's Winograd for 3x3 stride-1 ones on at least 16 input channels and
//   output planes at least 4 x 4 where oneDNN has it (oneDnnWinogradWins),
//   one GEMM on the input for 1x1 stride-1 unpadded ones, Winograd where it
//   saves the most multiplies over tiles enough, and oneDNN for the rest
//   (strided, 7x7, small 3x3: see ConvAlgo.cpp), the 1x1 ones on the
//   pointwise kernel instead (AVX-512 only) on batches of at most 64 pixels
//   or expanding at most 128 channels (on AMD CPUs, any), planes of at least
//   16 pixels; without, as below;
// - otherwise GEMM when Winograd cannot run it; an explicit Winograd request
//   (F(4x4) capped as above); auto: the crossover calibrated by bench_winograd.
ConvAlgo chooseConvAlgo(const ConvShape& s, ConvAlgoRequest request);

// A forward 3x3 stride-1 conv that oneDNN's Winograd runs faster than its
// direct conv and than ours (auto, stable weights; see ConvAlgo.cpp).
bool oneDnnWinogradWins(const ConvShape& s);

// True on AMD CPUs, where the pointwise kernel beat the GEMM on projections
// too and auto gives it every 1x1 plane of at least 16 pixels (ConvAlgo.cpp).
bool pointwiseTakesEveryPlane();

// A conv2d / conv2d_grad_input / conv2d_grad_weight node's shape from the
// graph's value types; nullopt for other ops or malformed shapes.
std::optional<ConvShape> convShapeOf(const ir::Graph& graph, const ir::Node& node);

// The algorithms the conv nodes among `nodes` run with, those in `joins`
// (OneDnnJoins.h) on oneDNN: "" without convs, "winograd4" when all agree,
// else "gemm x2, winograd4 x8" (in that order).
std::string describeConvAlgos(const ir::Graph& graph, const std::vector<ir::NodeId>& nodes, ConvAlgoRequest request,
                              const std::set<ir::NodeId>& joins = {});

// A conv node's algorithm and why, for reports: explainConvAlgo on its shape,
// or oneDNN where it is among `joins`.
ConvAlgoChoice explainConvAlgoOf(const ConvShape& s, ir::NodeId node, ConvAlgoRequest request,
                                 const std::set<ir::NodeId>& joins);

}  // namespace dfc::runtime
