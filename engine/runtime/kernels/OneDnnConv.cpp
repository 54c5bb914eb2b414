#include "runtime/kernels/OneDnnConv.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <dnnl.hpp>
#include <unordered_map>
#include <variant>

namespace dfc::runtime::kernels {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;
constexpr auto kF32 = memory::data_type::f32;

// oneDNN's OpenMP team size on this thread (OpenMP keeps it per thread);
// looked up, as in Sgemm.cpp, so a oneDNN on another runtime simply has none.
void setOneDnnThreads(int threads) {
  using SetThreads = void (*)(int);
  static const auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  if (set) set(threads);
}

// Sizes the team for the scope, then back to one (what Sgemm.cpp expects).
class TeamOf {
 public:
  explicit TeamOf(int threads) { setOneDnnThreads(threads); }
  ~TeamOf() { setOneDnnThreads(1); }
  TeamOf(const TeamOf&) = delete;
  TeamOf& operator=(const TeamOf&) = delete;
};

// Floats, rounded up to a 64-byte line.
int64_t floatsFor(const memory::desc& d) { return (static_cast<int64_t>(d.get_size()) / 4 + 15) / 16 * 16; }

float* aligned(float* p) {
  const auto at = reinterpret_cast<uintptr_t>(p);
  return reinterpret_cast<float*>((at + 63) / 64 * 64);
}

}  // namespace

bool activationOf(const ir::Node& node, ConvEpilogue& e) {
  if (node.inputs.size() != 1 || node.outputs.size() != 1) return false;
  if (node.op == ir::OpKind::Relu) {
    e.activation = ConvActivation::Relu;
    return true;
  }
  if (node.op != ir::OpKind::Unary) return false;
  auto it = node.attrs.find("fn");
  const std::string* name = it == node.attrs.end() ? nullptr : std::get_if<std::string>(&it->second);
  if (!name || (*name != "relu" && *name != "clip")) return false;
  e.activation = *name == "relu" ? ConvActivation::Relu : ConvActivation::Clip;
  e.lo = static_cast<float>(node.floatAttr("alpha"));
  e.hi = static_cast<float>(node.floatAttr("beta"));
  return true;
}

void applyActivation(const ConvEpilogue& e, float* __restrict y, int64_t n) {
  if (e.activation == ConvActivation::Relu)
    for (int64_t i = 0; i < n; ++i) y[i] = y[i] > 0 ? y[i] : 0.0f;
  const float lo = e.lo, hi = e.hi;  // locals, or the loop reloads them (y might alias e) and does not vectorize
  if (e.activation == ConvActivation::Clip)
    for (int64_t i = 0; i < n; ++i) {
      const float v = y[i] < lo ? lo : y[i];
      y[i] = v > hi ? hi : v;
    }
}

struct OneDnnConv::Impl {
  ConvGeometry g;
  ConvEpilogue e;
  int threads = 0;  // the primitive was made for this team size (0: not yet)
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::convolution_forward conv;
  memory userSrc, userWeights, userDst, bias;  // the caller's buffers, handles set per call
  memory src, weights, dst, scratchpad;        // oneDNN's layouts (src, dst, scratchpad in the workspace)
  dnnl::reorder toSrc, toWeights, fromDst;
  bool reorderSrc = false, reorderWeights = false, reorderDst = false, weightsReady = false;
  int64_t srcFloats = 0, dstFloats = 0, padFloats = 0;
  std::string implementation;

  dnnl::convolution_forward::primitive_desc describe() const {
    const memory::dims x{g.n, g.c, g.h, g.w}, y{g.n, g.o, g.oh, g.ow};
    const memory::dims w = g.group > 1 ? memory::dims{g.group, g.o / g.group, g.c / g.group, g.kh, g.kw}
                                       : memory::dims{g.o, g.c, g.kh, g.kw};
    auto any = [](const memory::dims& d) { return memory::desc(d, kF32, Tag::any); };
    const memory::dims strides{g.sh, g.sw}, dilates{g.dh - 1, g.dw - 1}, padL{g.padTop, g.padLeft},
        padR{g.padBottom, g.padRight};
    using Fwd = dnnl::convolution_forward;
    const auto kind = dnnl::prop_kind::forward_inference;
    const auto algo = dnnl::algorithm::convolution_direct;
    const Fwd::desc d = e.bias ? Fwd::desc(kind, algo, any(x), any(w), memory::desc({g.o}, kF32, Tag::x), any(y),
                                           strides, dilates, padL, padR)
                               : Fwd::desc(kind, algo, any(x), any(w), any(y), strides, dilates, padL, padR);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::post_ops ops;
    if (e.activation == ConvActivation::Relu) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    if (e.activation == ConvActivation::Clip) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, e.lo, e.hi);
    attr.set_post_ops(ops);
    return Fwd::primitive_desc(d, attr, engine);
  }

  void make(int teamSize) {
    TeamOf team(teamSize);
    const auto pd = describe();
    conv = dnnl::convolution_forward(pd);
    implementation = pd.impl_info_str();
    const memory::dims w = g.group > 1 ? memory::dims{g.group, g.o / g.group, g.c / g.group, g.kh, g.kw}
                                       : memory::dims{g.o, g.c, g.kh, g.kw};
    userSrc = memory({{g.n, g.c, g.h, g.w}, kF32, Tag::nchw}, engine, DNNL_MEMORY_NONE);
    userDst = memory({{g.n, g.o, g.oh, g.ow}, kF32, Tag::nchw}, engine, DNNL_MEMORY_NONE);
    userWeights = memory({w, kF32, g.group > 1 ? Tag::goihw : Tag::oihw}, engine, DNNL_MEMORY_NONE);
    bias = memory({{g.o}, kF32, Tag::x}, engine, DNNL_MEMORY_NONE);
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
    srcFloats = reorderSrc ? floatsFor(pd.src_desc()) : 0;
    dstFloats = reorderDst ? floatsFor(pd.dst_desc()) : 0;
    padFloats = floatsFor(pd.scratchpad_desc());
    threads = teamSize;
    weightsReady = false;
  }

  void execute(const float* x, const float* w, const float* b, float* y, float* workspace, bool stableWeights) {
    TeamOf team(threads);
    float* base = aligned(workspace);
    userSrc.set_data_handle(const_cast<float*>(x));
    userDst.set_data_handle(y);
    if (reorderSrc) src.set_data_handle(base);
    if (reorderDst) dst.set_data_handle(base + srcFloats);
    scratchpad.set_data_handle(base + srcFloats + dstFloats);
    userWeights.set_data_handle(const_cast<float*>(w));
    if (reorderWeights && !(stableWeights && weightsReady)) toWeights.execute(stream, userWeights, weights);
    weightsReady = true;
    if (reorderSrc) toSrc.execute(stream, userSrc, src);
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}, {DNNL_ARG_SCRATCHPAD, scratchpad}};
    if (e.bias) {
      bias.set_data_handle(const_cast<float*>(b));
      args.emplace(DNNL_ARG_BIAS, bias);
    }
    conv.execute(stream, args);
    if (reorderDst) fromDst.execute(stream, dst, userDst);
    stream.wait();
  }
};

OneDnnConv::OneDnnConv(const ConvGeometry& g, const ConvEpilogue& e) : m_impl(std::make_unique<Impl>()) {
  m_impl->g = g;
  m_impl->e = e;
}

OneDnnConv::~OneDnnConv() = default;

Expected<int64_t> OneDnnConv::workspaceFloats(int threads) {
  try {
    if (m_impl->threads != threads) m_impl->make(threads);
  } catch (const dnnl::error& err) {
    return internalError(std::string("oneDNN cannot make the convolution: ") + err.what());
  }
  return m_impl->srcFloats + m_impl->dstFloats + m_impl->padFloats + 16;
}

Status OneDnnConv::run(int threads, const float* x, const float* w, const float* bias, float* y, float* workspace,
                       bool stableWeights) {
  if (m_impl->threads != threads) return internalError("oneDNN convolution run before its workspace was sized");
  try {
    m_impl->execute(x, w, bias, y, workspace, stableWeights);
  } catch (const dnnl::error& err) {
    return internalError(std::string("oneDNN convolution failed: ") + err.what());
  }
  return {};
}

std::string OneDnnConv::implementation() const { return m_impl->implementation; }

}  // namespace dfc::runtime::kernels
