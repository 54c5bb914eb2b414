#include "runtime/kernels/OneDnnConv.h"

#include <algorithm>
#include <cstdint>
#include <dnnl.hpp>
#include <unordered_map>
#include <variant>
#include <vector>

#include "runtime/Kernel.h"
#include "runtime/kernels/OneDnnThreads.h"
#include "support/LibraryClock.h"

namespace dfc::runtime::kernels {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;
constexpr auto kF32 = memory::data_type::f32;

// Floats, rounded up to a 64-byte line.
int64_t floatsFor(const memory::desc& d) { return (static_cast<int64_t>(d.get_size()) / 4 + 15) / 16 * 16; }

// The part of the convolution one thread runs: images [n0, n0 + n), input
// channels [c0, c0 + c), output channels [o0, o0 + o) in `group` groups, and
// output rows [oy0, oy0 + oh), which read input rows [iy0, iy0 + ih) with
// padTop and padBottom rows of the padding.
struct Slice {
  int64_t n0, n, c0, c, o0, o, group;
  int64_t oy0 = 0, oh = 0, iy0 = 0, ih = 0, padTop = 0, padBottom = 0;
};

Slice allRows(const ConvGeometry& g, Slice s) {
  s.oy0 = 0, s.oh = g.oh, s.iy0 = 0, s.ih = g.h, s.padTop = g.padTop, s.padBottom = g.padBottom;
  return s;
}

// Output rows [a, b) of every channel of the one image: the input rows they
// read, and the padding rows above and below those.
Slice rowSlice(const ConvGeometry& g, int64_t a, int64_t b) {
  Slice s{0, 1, 0, g.c, 0, g.o, 1};
  const int64_t first = a * g.sh - g.padTop, last = (b - 1) * g.sh - g.padTop + (g.kh - 1) * g.dh + 1;
  s.oy0 = a, s.oh = b - a;
  s.iy0 = std::max<int64_t>(0, first);
  s.ih = std::min(g.h, last) - s.iy0;
  s.padTop = s.iy0 - first, s.padBottom = last - (s.iy0 + s.ih);
  return s;
}

// oneDNN's AVX-512 kernels block output channels by 16: an ungrouped conv is
// cut on whole blocks.
constexpr int64_t kChannelBlock = 16;

// One image cut into bands of output rows, one a thread: how a conv with its
// tensors held channels-last splits (each band's rows are contiguous there).
// Empty when a band would read no input row.
std::vector<Slice> cutRows(const ConvGeometry& g, int threads) {
  std::vector<Slice> slices;
  const int64_t pieces = std::min<int64_t>(threads, g.oh);
  for (int64_t p = 0; p < pieces; ++p) {
    slices.push_back(rowSlice(g, g.oh * p / pieces, g.oh * (p + 1) / pieces));
    if (slices.back().ih <= 0) return {};
  }
  return slices;
}

// Bands of rows each read every weight, blocks of channels each the whole
// input and write a strided slice of y through a reorder: rows where the
// weights are no bigger than y (c * kh * kw <= oh * ow, the early layers).
bool rowsPay(const ConvGeometry& g) { return g.c * g.kh * g.kw <= g.oh * g.ow; }

// One slice per thread: by images when each thread gets one, by rows (one
// image, tensors held, not Winograd), else by groups (grouped, depthwise) or blocks of
// output channels (ungrouped).
std::vector<Slice> cut(const ConvGeometry& g, int threads, bool held) {
  if (threads <= 1) return {allRows(g, {0, g.n, 0, g.c, 0, g.o, g.group})};
  std::vector<Slice> slices;
  if (g.n >= threads) {
    for (int64_t t = 0; t < threads; ++t) {
      const int64_t n0 = g.n * t / threads, n1 = g.n * (t + 1) / threads;
      slices.push_back(allRows(g, {n0, n1 - n0, 0, g.c, 0, g.o, g.group}));
    }
    return slices;
  }
  // Winograd cuts one image by channels, held or not (so a plain run has a
  // held one's bits): ResNet-18 b1 at 2 threads took 11.2 ms a step so,
  // 19.5 ms with bands of rows.
  if (held && g.n == 1 && g.group == 1 && rowsPay(g) && !g.winograd)
    if (auto rows = cutRows(g, threads); rows.size() > 1) return rows;
  const int64_t units = g.group > 1 ? g.group : (g.o + kChannelBlock - 1) / kChannelBlock;
  const int64_t pieces = std::min<int64_t>(threads, units);
  const int64_t cpg = g.c / g.group, opg = g.o / g.group;
  for (int64_t p = 0; p < pieces; ++p) {
    const int64_t u0 = units * p / pieces, u1 = units * (p + 1) / pieces;
    if (g.group > 1) {
      slices.push_back(allRows(g, {0, g.n, u0 * cpg, (u1 - u0) * cpg, u0 * opg, (u1 - u0) * opg, u1 - u0}));
    } else {
      const int64_t o0 = u0 * kChannelBlock, o1 = std::min(g.o, u1 * kChannelBlock);
      slices.push_back(allRows(g, {0, g.n, 0, g.c, o0, o1 - o0, 1}));
    }
  }
  return slices;
}

}  // namespace

bool blockedLayoutFits(const ConvGeometry& g) { return g.group == 1; }

bool oneDnnWinogradAvailable() {
  static const bool available = [] {
    try {
      holdOneDnnToOneThread();
      const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
      auto any = [](const memory::dims& d) { return memory::desc(d, kF32, Tag::any); };
      using Fwd = dnnl::convolution_forward;
      const Fwd::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_winograd, any({1, 16, 8, 8}),
                        any({16, 16, 3, 3}), memory::desc({16}, kF32, Tag::x), any({1, 16, 8, 8}), {1, 1}, {1, 1},
                        {1, 1});
      dnnl::post_ops ops;
      ops.append_sum(1.0f);
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
      dnnl::primitive_attr attr;
      attr.set_post_ops(ops);
      attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
      return Fwd::primitive_desc(d, attr, engine).impl_info_str() != nullptr;
    } catch (const dnnl::error&) {
      return false;
    }
  }();
  return available;
}

// One slice on its own single-threaded primitive, stream and memory objects.
struct Piece {
  ConvGeometry g;  // the whole convolution
  Slice slice;
  ConvEpilogue e;
  ConvLayouts layouts;
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::convolution_forward conv;
  memory userSrc, userWeights, userDst, bias, userSkip;  // the caller's buffers, handles set per call
  memory src, weights, dst, scratchpad;        // oneDNN's layouts (src, dst, scratchpad in the workspace)
  dnnl::reorder toSrc, toWeights, fromDst, skipToDst;
  bool reorderSrc = false, reorderWeights = false, reorderDst = false, weightsReady = false;
  int64_t srcFloats = 0, dstFloats = 0, padFloats = 0;
  int64_t xAt = 0, yAt = 0, skipAt = 0;  // where the slice starts in the caller's x, y and skip
  std::string implementation;
  // The residual read by a binary-add post-op instead of copied into dst
  // first for the sum post-op (see useBinaryResidual).
  bool binaryResidual = false;

  Piece(const ConvGeometry& geometry, const Slice& s, const ConvEpilogue& epilogue, ConvLayouts held)
      : g(geometry), slice(s), e(epilogue), layouts(held), binaryResidual(useBinaryResidual()) {}

  // The sum post-op needs dst to hold the residual: a copy of y's size first.
  // A binary add reads it in place, but oneDNN 2.6 then runs a 1x1 on its
  // jit_1x1 kernel instead of brgconv, faster on large planes only (ResNet-50
  // b1, one thread, the residual 1x1s: 0.65-0.98 ms against 0.72-1.12 on
  // 56-14 wide planes, 1.28 against 0.92 on 7 x 7), and a 3x3 on a slower
  // one (ResNet-18: 23.2 against 22.9 ms a step). Held, dense tensors only
  // (a strided slice sends it to the reference kernel).
  bool useBinaryResidual() const {
    return e.residual && layouts.skip && layouts.y && slice.o == g.o && g.kh == 1 && g.kw == 1 && g.oh >= 14;
  }

  // A held tensor is channels-last (NHWC); the slice sees it with the whole
  // tensor's strides, its channels a run within each pixel's and its rows a
  // run of the image's. (One image: its stride is its own, so a whole one is dense.)
  static memory::desc nhwc(const memory::dims& d, int64_t channels, int64_t h, int64_t w) {
    const int64_t imageStride = d[0] == 1 ? d[2] * w * channels : h * w * channels;
    return memory::desc(d, kF32, {imageStride, 1, w * channels, channels});
  }
  memory::desc srcHeld() const { return nhwc({slice.n, slice.c, slice.ih, g.w}, g.c, g.h, g.w); }
  memory::desc dstHeld() const { return nhwc({slice.n, slice.o, slice.oh, g.ow}, g.o, g.oh, g.ow); }
  // Where the slice starts in x, and in y or the skip.
  int64_t srcOffset(bool held) const {
    const Slice& s = slice;
    return held ? (s.n0 * g.h + s.iy0) * g.w * g.c + s.c0 : ((s.n0 * g.c + s.c0) * g.h + s.iy0) * g.w;
  }
  int64_t dstOffset(bool held) const {
    const Slice& s = slice;
    return held ? (s.n0 * g.oh + s.oy0) * g.ow * g.o + s.o0 : ((s.n0 * g.o + s.o0) * g.oh + s.oy0) * g.ow;
  }

  // Part [at, at + part) of a held nChw16c tensor `whole`: a dense desc and
  // the offset of its start where it is one run of the tensor (whole images,
  // or blocks of one image's channels), else a sub-memory of it (offset 0).
  static std::pair<memory::desc, int64_t> blocked16(const memory::dims& whole, const memory::dims& part,
                                                    const memory::dims& at) {
    const bool run = part[2] == whole[2] && (part[1] == whole[1] || part[0] == 1);
    if (run) return {memory::desc(part, kF32, Tag::nChw16c), (at[0] * whole[1] + at[1]) * whole[2] * whole[3]};
    return {memory::desc(whole, kF32, Tag::nChw16c).submemory_desc(part, at), 0};
  }
  std::pair<memory::desc, int64_t> src16() const {
    return blocked16({g.n, g.c, g.h, g.w}, {slice.n, slice.c, slice.ih, g.w}, {slice.n0, slice.c0, slice.iy0, 0});
  }
  std::pair<memory::desc, int64_t> dst16() const {
    return blocked16({g.n, g.o, g.oh, g.ow}, {slice.n, slice.o, slice.oh, g.ow}, {slice.n0, slice.o0, slice.oy0, 0});
  }

  memory::dims weightDims() const {
    const Slice& s = slice;
    return s.group > 1 ? memory::dims{s.group, s.o / s.group, s.c / s.group, g.kh, g.kw}
                       : memory::dims{s.o, s.c, g.kh, g.kw};
  }

  dnnl::convolution_forward::primitive_desc describe() const {
    const memory::dims x{slice.n, slice.c, slice.ih, g.w}, y{slice.n, slice.o, slice.oh, g.ow};
    auto any = [](const memory::dims& d) { return memory::desc(d, kF32, Tag::any); };
    const memory::dims strides{g.sh, g.sw}, dilates{g.dh - 1, g.dw - 1}, padL{slice.padTop, g.padLeft},
        padR{slice.padBottom, g.padRight};
    using Fwd = dnnl::convolution_forward;
    const auto kind = dnnl::prop_kind::forward_inference;
    const auto algo = g.winograd ? dnnl::algorithm::convolution_winograd : dnnl::algorithm::convolution_direct;
    const memory::dims w = weightDims();
    // Winograd runs on its own layout only: held tensors are reordered.
    const memory::desc xd = layouts.x && !g.winograd ? srcHeld() : any(x);
    // A slice of y's channels is strided: the primitive writes a dense one, reordered into place.
    const memory::desc yd = layouts.y && slice.o == g.o && !g.winograd ? dstHeld() : any(y);
    const Fwd::desc d = e.bias ? Fwd::desc(kind, algo, xd, any(w), memory::desc({slice.o}, kF32, Tag::x), yd, strides,
                                           dilates, padL, padR)
                               : Fwd::desc(kind, algo, xd, any(w), yd, strides, dilates, padL, padR);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::post_ops ops;
    if (e.residual && binaryResidual)
      ops.append_binary(dnnl::algorithm::binary_add, dstHeld());
    else if (e.residual)
      ops.append_sum(1.0f);  // dst holds the residual when the conv starts
    if (e.activation == ConvActivation::Relu) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    if (e.activation == ConvActivation::Clip) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, e.lo, e.hi);
    if (e.activation == ConvActivation::Silu) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_swish, 1.0f, 0.0f);
    if (e.activation == ConvActivation::HardSwish)
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_hardswish, 0.0f, 0.0f);
    attr.set_post_ops(ops);
    return Fwd::primitive_desc(d, attr, engine);
  }

  // The caller's NCHW tensors seen through the slice: strides of the whole tensor.
  // The primitive's description; a Winograd one oneDNN refuses for this
  // slice runs as its direct conv (implementation() tells which ran).
  dnnl::convolution_forward::primitive_desc describeOrDirect() {
    if (g.winograd) {
      try {
        return describe();
      } catch (const dnnl::error&) {
        g.winograd = false;
      }
    }
    return describe();
  }

  void make() {
    auto pd = describeOrDirect();
    if (binaryResidual && std::string(pd.impl_info_str()).rfind("ref", 0) == 0) {
      binaryResidual = false;  // never the reference kernel: the copy and the sum instead
      pd = describe();
    }
    conv = dnnl::convolution_forward(pd);
    implementation = pd.impl_info_str();
    const Slice& s = slice;
    // NCHW or held channels-last: the slice seen with the whole tensor's strides.
    const memory::desc srcPlain({s.n, s.c, s.ih, g.w}, kF32, {g.c * g.h * g.w, g.h * g.w, g.w, 1});
    const memory::desc dstPlain({s.n, s.o, s.oh, g.ow}, kF32, {g.o * g.oh * g.ow, g.oh * g.ow, g.ow, 1});
    const memory::desc srcBlocked = srcHeld(), dstBlocked = dstHeld();
    // Only for held nChw16c tensors: whole 16-channel blocks.
    const auto [srcWino, srcWinoAt] = layouts.x16 ? src16() : std::pair{srcPlain, int64_t{0}};
    const auto [dstWino, dstWinoAt] = layouts.y16 || layouts.skip16 ? dst16() : std::pair{dstPlain, int64_t{0}};
    userSrc = memory(layouts.x16 ? srcWino : layouts.x ? srcBlocked : srcPlain, engine, DNNL_MEMORY_NONE);
    userDst = memory(layouts.y16 ? dstWino : layouts.y ? dstBlocked : dstPlain, engine, DNNL_MEMORY_NONE);
    xAt = layouts.x16 ? srcWinoAt : srcOffset(layouts.x);
    yAt = layouts.y16 ? dstWinoAt : dstOffset(layouts.y);
    skipAt = layouts.skip16 ? dstWinoAt : dstOffset(layouts.skip);
    userWeights = memory({weightDims(), kF32, s.group > 1 ? Tag::goihw : Tag::oihw}, engine, DNNL_MEMORY_NONE);
    bias = memory({{s.o}, kF32, Tag::x}, engine, DNNL_MEMORY_NONE);
    userSkip = memory(layouts.skip16 ? dstWino : layouts.skip ? dstBlocked : dstPlain, engine, DNNL_MEMORY_NONE);
    reorderSrc = pd.src_desc() != userSrc.get_desc();
    reorderDst = pd.dst_desc() != userDst.get_desc();
    reorderWeights = pd.weights_desc() != userWeights.get_desc();
    src = reorderSrc ? memory(pd.src_desc(), engine, DNNL_MEMORY_NONE) : userSrc;
    dst = reorderDst ? memory(pd.dst_desc(), engine, DNNL_MEMORY_NONE) : userDst;
    weights = reorderWeights ? memory(pd.weights_desc(), engine) : userWeights;  // owns its buffer
    scratchpad = memory(pd.scratchpad_desc(), engine, DNNL_MEMORY_NONE);
    if (reorderSrc) toSrc = dnnl::reorder(userSrc, src);
    if (reorderDst) fromDst = dnnl::reorder(dst, userDst);
    if (reorderWeights) toWeights = dnnl::reorder(userWeights, weights);
    if (e.residual && !binaryResidual) skipToDst = dnnl::reorder(userSkip, dst);  // a copy when the layouts agree
    srcFloats = reorderSrc ? floatsFor(pd.src_desc()) : 0;
    dstFloats = reorderDst ? floatsFor(pd.dst_desc()) : 0;
    padFloats = floatsFor(pd.scratchpad_desc());
  }

  int64_t workspaceFloats() const { return srcFloats + dstFloats + padFloats + 16; }

  void execute(const float* x, const float* w, const float* b, float* y, float* workspace, bool stableWeights,
               const float* skip) {
    const Slice& s = slice;
    float* base = onLine(workspace);
    userSrc.set_data_handle(const_cast<float*>(x + xAt));
    userDst.set_data_handle(y + yAt);
    if (reorderSrc) src.set_data_handle(base);
    if (reorderDst) dst.set_data_handle(base + srcFloats);
    scratchpad.set_data_handle(base + srcFloats + dstFloats);
    userWeights.set_data_handle(const_cast<float*>(w + s.o0 * (g.c / g.group) * g.kh * g.kw));
    if (reorderWeights && !(stableWeights && weightsReady)) toWeights.execute(stream, userWeights, weights);
    weightsReady = true;
    if (reorderSrc) toSrc.execute(stream, userSrc, src);
    if (e.residual) userSkip.set_data_handle(const_cast<float*>(skip + skipAt));
    if (e.residual && !binaryResidual) skipToDst.execute(stream, userSkip, dst);
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}, {DNNL_ARG_SCRATCHPAD, scratchpad}};
    if (e.residual && binaryResidual) args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, userSkip);
    if (e.bias) {
      bias.set_data_handle(const_cast<float*>(b + s.o0));
      args.emplace(DNNL_ARG_BIAS, bias);
    }
    {
      // Library time: the primitive with its own post-ops (bias, residual
      // sum, activation), not the layout reorders around it.
      const support::LibraryCallTimer timed;
      conv.execute(stream, args);
      stream.wait();
    }
    if (reorderDst) fromDst.execute(stream, dst, userDst);
    stream.wait();
  }
};

struct OneDnnConv::Impl {
  ConvGeometry g;
  ConvEpilogue e;
  ConvLayouts layouts;
  int threads = 0;  // the pieces were cut for this many threads (0: not yet)
  std::vector<std::unique_ptr<Piece>> pieces;
  std::vector<int64_t> offsets;  // each piece's workspace, in floats from the start

  void make(int threadCount) {
    holdOneDnnToOneThread();
    pieces.clear();
    offsets.clear();
    int64_t at = 0;
    for (const Slice& s : cut(g, threadCount, layouts.x || layouts.y || layouts.skip)) {
      pieces.push_back(std::make_unique<Piece>(g, s, e, layouts));
      pieces.back()->make();
      offsets.push_back(at);
      at += pieces.back()->workspaceFloats();
    }
    offsets.push_back(at);
    threads = threadCount;
  }
};

OneDnnConv::OneDnnConv(const ConvGeometry& g, const ConvEpilogue& e, ConvLayouts layouts)
    : m_impl(std::make_unique<Impl>()) {
  m_impl->g = g;
  m_impl->e = e;
  m_impl->layouts = layouts;
}

OneDnnConv::~OneDnnConv() = default;

Expected<int64_t> OneDnnConv::workspaceFloats(int threads) {
  const ConvLayouts& l = m_impl->layouts;
  if ((l.x || l.skip || l.y) && !blockedLayoutFits(m_impl->g))
    return internalError("oneDNN convolution planned with held tensors is grouped");
  try {
    if (m_impl->threads != threads) m_impl->make(std::max(1, threads));
  } catch (const dnnl::error& err) {
    m_impl->threads = 0;
    return internalError(std::string("oneDNN cannot make the convolution: ") + err.what());
  }
  return m_impl->offsets.back();
}

Status OneDnnConv::run(support::ThreadPool& pool, int threads, const float* x, const float* w, const float* bias,
                       float* y, float* workspace, bool stableWeights, const float* skip) {
  if (m_impl->e.residual && !skip) return internalError("oneDNN convolution with a residual run without it");
  if (m_impl->threads != std::max(1, threads))
    return internalError("oneDNN convolution run before its workspace was sized");
  const int64_t count = static_cast<int64_t>(m_impl->pieces.size());
  return pool.parallelFor(0, count, 1, [&](int64_t p0, int64_t p1) -> Status {
    holdOneDnnToOneThread();
    for (int64_t p = p0; p < p1; ++p) {
      try {
        m_impl->pieces[p]->execute(x, w, bias, y, workspace + m_impl->offsets[p], stableWeights, skip);
      } catch (const dnnl::error& err) {
        return internalError(std::string("oneDNN convolution failed: ") + err.what());
      }
    }
    return {};
  });
}

int OneDnnConv::pieces() const { return static_cast<int>(m_impl->pieces.size()); }

std::string OneDnnConv::implementation() const {
  return m_impl->pieces.empty() ? std::string() : m_impl->pieces.front()->implementation;
}

}  // namespace dfc::runtime::kernels
