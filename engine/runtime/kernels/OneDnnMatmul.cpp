#include "runtime/kernels/OneDnnMatmul.h"

#include <algorithm>
#include <dnnl.hpp>
#include <unordered_map>
#include <vector>

#include "runtime/kernels/OneDnnThreads.h"
#include "runtime/kernels/Sgemm.h"
#include "support/LibraryClock.h"

namespace dfc::runtime::kernels {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;
constexpr auto kF32 = memory::data_type::f32;

// Pieces start on whole 64-column blocks (brgemm's AVX-512 output block).
constexpr int64_t kColumnBlock = 64;

// Output columns [n0, n0 + n) of the product: its primitive and its packed weights.
struct Piece {
  const MatmulShape* s = nullptr;
  int64_t n0 = 0, n = 0;
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::matmul matmul;
  memory src, userWeights, weights, bias, dst;
  bool weightsReady = false;
  std::string implementation;

  void make() {
    const memory::desc srcDesc({s->m, s->k}, kF32, memory::dims{s->lda, 1});
    // b's columns [n0, n0 + n): [k, n] rows ldb apart, or b^T [n, k] read as k x n with strides (1, ldb).
    const memory::desc userW({s->k, n}, kF32, s->tb ? memory::dims{1, s->ldb} : memory::dims{s->ldb, 1});
    const memory::desc dstDesc({s->m, n}, kF32, memory::dims{s->ldc, 1});
    const memory::desc biasDesc({1, n}, kF32, Tag::ab);
    const memory::desc anyW({s->k, n}, kF32, Tag::any);
    const auto desc =
        s->bias ? dnnl::matmul::desc(srcDesc, anyW, biasDesc, dstDesc) : dnnl::matmul::desc(srcDesc, anyW, dstDesc);
    const dnnl::matmul::primitive_desc pd(desc, engine);
    matmul = dnnl::matmul(pd);
    implementation = pd.impl_info_str();
    src = memory(srcDesc, engine, DNNL_MEMORY_NONE);
    dst = memory(dstDesc, engine, DNNL_MEMORY_NONE);
    bias = memory(biasDesc, engine, DNNL_MEMORY_NONE);
    userWeights = memory(userW, engine, DNNL_MEMORY_NONE);
    weights = memory(pd.weights_desc(), engine);  // owns its buffer
  }

  void execute(const float* a, const float* b, const float* biasData, float* c) {
    if (!weightsReady) {
      userWeights.set_data_handle(const_cast<float*>(s->tb ? b + n0 * s->ldb : b + n0));
      dnnl::reorder(userWeights, weights).execute(stream, userWeights, weights);
      weightsReady = true;
    }
    src.set_data_handle(const_cast<float*>(a));
    dst.set_data_handle(c + n0);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}};
    if (s->bias) {
      bias.set_data_handle(const_cast<float*>(biasData + n0));
      args.emplace(DNNL_ARG_BIAS, bias);
    }
    const support::LibraryCallTimer timed;
    matmul.execute(stream, args);
    stream.wait();
  }
};

}  // namespace

bool prepackedMatmulAvailable() { return oneDnnHasAvx512(); }

struct OneDnnMatmul::Impl {
  MatmulShape s;
  int width = 0;  // the pieces were cut for this width (0: not yet)
  std::vector<std::unique_ptr<Piece>> pieces;

  void make(int w) {
    holdOneDnnToOneThread();
    pieces.clear();
    const int64_t blocks = (s.n + kColumnBlock - 1) / kColumnBlock;
    const int64_t count = std::clamp<int64_t>(blocks, 1, w);
    for (int64_t p = 0; p < count; ++p) {
      auto piece = std::make_unique<Piece>();
      piece->s = &s;
      piece->n0 = std::min(s.n, blocks * p / count * kColumnBlock);
      piece->n = std::min(s.n, blocks * (p + 1) / count * kColumnBlock) - piece->n0;
      piece->make();
      pieces.push_back(std::move(piece));
    }
    width = w;
  }
};

OneDnnMatmul::OneDnnMatmul(const MatmulShape& s) : m_impl(std::make_unique<Impl>()) { m_impl->s = s; }

OneDnnMatmul::~OneDnnMatmul() = default;

std::string OneDnnMatmul::implementation() const {
  return m_impl->pieces.empty() ? std::string() : m_impl->pieces.front()->implementation;
}

Status OneDnnMatmul::run(support::ThreadPool& pool, int width, const float* a, const float* b, const float* bias,
                         float* c) {
  width = std::max(1, width);
  try {
    if (m_impl->width != width) m_impl->make(width);
  } catch (const dnnl::error& err) {
    m_impl->width = 0;
    return internalError(std::string("oneDNN cannot make the matmul: ") + err.what());
  }
  const int64_t count = static_cast<int64_t>(m_impl->pieces.size());
  return pool.parallelFor(0, count, 1, [&](int64_t p0, int64_t p1) -> Status {
    holdOneDnnToOneThread();
    for (int64_t p = p0; p < p1; ++p) {
      try {
        m_impl->pieces[static_cast<size_t>(p)]->execute(a, b, bias, c);
      } catch (const dnnl::error& err) {
        return internalError(std::string("oneDNN matmul failed: ") + err.what());
      }
    }
    return {};
  });
}

}  // namespace dfc::runtime::kernels
