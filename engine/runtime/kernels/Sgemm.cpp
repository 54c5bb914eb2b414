#include "runtime/kernels/Sgemm.h"

#include <cblas.h>
#include <dnnl.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "runtime/kernels/Gemv.h"
#include "runtime/kernels/OneDnnThreads.h"
#include "support/LibraryClock.h"
#include "support/ThreadPool.h"

namespace dfc::runtime::kernels {
namespace {

std::atomic<GemmLibrary> g_library{GemmLibrary::Auto};

// A piece of a split GEMM keeps at least this many rows or columns.
constexpr int64_t kMinPieceExtent = 32;
// Where a split may cut: on whole blocks of the library kernels' unroll
// (oneDNN's AVX2 sgemm computes our rows 6 at a time and our columns 16 at a
// time, AVX-512 8 and 48), so pieces add few remainder blocks. It does not
// make a piece's bits those of the unsplit call: oneDNN on AVX2 also blocks
// by shape (rows cut at 48 changed 865 elements of a 256 x 256 x 64 B^T
// product), so only a fixed split width gives fixed bits.
constexpr int64_t kRowAlign = 24, kColumnAlign = 48;

// OpenBLAS at one thread, once, unless the user set its thread count.
void holdOpenBlasToOneThread() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (!std::getenv("OPENBLAS_NUM_THREADS") && !std::getenv("OMP_NUM_THREADS")) openblas_set_num_threads(1);
  });
}

Status oneDnnSgemm(const GemmCall& g) {
  holdOneDnnToOneThread();
  const support::LibraryCallTimer timed;
  const dnnl_status_t status = dnnl_sgemm(g.ta ? 'T' : 'N', g.tb ? 'T' : 'N', g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b,
                                          g.ldb, g.beta, g.c, g.ldc);
  if (status == dnnl_success) return {};
  // The kernels check shapes before they build a call, so this is out of memory or a bug.
  return internalError("oneDNN sgemm " + std::to_string(g.m) + " x " + std::to_string(g.n) + " x " +
                       std::to_string(g.k) + " failed with status " + std::to_string(static_cast<int>(status)));
}

Status openBlasSgemm(const GemmCall& g) {
  holdOpenBlasToOneThread();
  const support::LibraryCallTimer timed;
  cblas_sgemm(CblasRowMajor, g.ta ? CblasTrans : CblasNoTrans, g.tb ? CblasTrans : CblasNoTrans, static_cast<int>(g.m),
              static_cast<int>(g.n), static_cast<int>(g.k), g.alpha, g.a, static_cast<int>(g.lda), g.b,
              static_cast<int>(g.ldb), g.beta, g.c, static_cast<int>(g.ldc));
  return {};
}

// The part of g that writes output rows [r0, r1).
GemmCall rows(const GemmCall& g, int64_t r0, int64_t r1) {
  GemmCall p = g;
  p.m = r1 - r0;
  p.a = g.ta ? g.a + r0 : g.a + r0 * g.lda;  // op(a) row r is a's column r when transposed
  p.c = g.c + r0 * g.ldc;
  if (g.rowBias) p.rowBias = g.rowBias + r0;
  if (g.residual) p.residual = g.residual + r0 * g.ldr;
  return p;
}

// The part of g that writes output columns [c0, c1).
GemmCall columns(const GemmCall& g, int64_t c0, int64_t c1) {
  GemmCall p = g;
  p.n = c1 - c0;
  p.b = g.tb ? g.b + c0 * g.ldb : g.b + c0;  // op(b) column c is b's row c when transposed
  p.c = g.c + c0;
  if (g.columnBias) p.columnBias = g.columnBias + c0;
  if (g.residual) p.residual = g.residual + c0;
  return p;
}

}  // namespace

bool oneDnnHasAvx512() {
  static const bool has = [] {
    switch (dnnl_get_effective_cpu_isa()) {
      case dnnl_cpu_isa_avx512_core:
      case dnnl_cpu_isa_avx512_core_vnni:
      case dnnl_cpu_isa_avx512_core_bf16:
      case dnnl_cpu_isa_avx512_core_amx:
        return true;
      default:
        return false;
    }
  }();
  return has;
}

GemmLibrary gemmLibrary() { return g_library.load(std::memory_order_relaxed); }

void setGemmLibrary(GemmLibrary library) { g_library.store(library, std::memory_order_relaxed); }

const char* gemmLibraryName(GemmLibrary library) {
  switch (library) {
    case GemmLibrary::Auto: return "auto";
    case GemmLibrary::OneDnn: return "onednn";
    case GemmLibrary::OpenBlas: return "openblas";
  }
  return "auto";
}

bool parseGemmLibrary(const char* text, GemmLibrary& out) {
  if (std::strcmp(text, "auto") == 0) out = GemmLibrary::Auto;
  else if (std::strcmp(text, "onednn") == 0) out = GemmLibrary::OneDnn;
  else if (std::strcmp(text, "openblas") == 0) out = GemmLibrary::OpenBlas;
  else return false;
  return true;
}

GemmLibrary libraryFor(GemmLibrary library, bool ta, bool tb, int64_t m, int64_t n, int64_t k) {
  if (library != GemmLibrary::Auto) return library;
  constexpr int64_t kLarge = 256;
  const bool largeAt = ta && !tb && k >= kLarge && std::min(m, n) >= kLarge;
  return largeAt && !oneDnnHasAvx512() ? GemmLibrary::OpenBlas : GemmLibrary::OneDnn;
}

const char* gemmKernelDescription() {
  thread_local std::string text;
  const GemmLibrary library = gemmLibrary();
  if (library == GemmLibrary::OpenBlas) {
    text = std::string("OpenBLAS ") + openblas_get_corename();
    return text.c_str();
  }
  const dnnl_version_t* v = dnnl_version();
  const char* isa = "baseline";
  switch (dnnl_get_effective_cpu_isa()) {
    case dnnl_cpu_isa_avx2: isa = "avx2"; break;
    case dnnl_cpu_isa_avx2_vnni: isa = "avx2_vnni"; break;
    case dnnl_cpu_isa_avx512_core: isa = "avx512_core"; break;
    case dnnl_cpu_isa_avx512_core_vnni: isa = "avx512_core_vnni"; break;
    case dnnl_cpu_isa_avx512_core_bf16: isa = "avx512_core_bf16"; break;
    case dnnl_cpu_isa_avx512_core_amx: isa = "avx512_core_amx"; break;
    default: break;
  }
  text = "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch) +
         ", " + isa;
  if (library == GemmLibrary::Auto && libraryFor(library, true, false, 1024, 1024, 1024) == GemmLibrary::OpenBlas)
    text += std::string("; A^T products on OpenBLAS ") + openblas_get_corename();
  return text.c_str();
}

namespace {

// One panel (or a whole call without bias or activation): bias, product, activation.
Status sgemmPanel(const GemmCall& call) {
  GemmCall g = call;
  if (g.columnBias || g.rowBias) {  // the bias first, then the product accumulates onto it
    for (int64_t i = 0; i < g.m; ++i) {
      float* __restrict row = g.c + i * g.ldc;
      if (g.columnBias) std::copy(g.columnBias, g.columnBias + g.n, row);
      else std::fill(row, row + g.n, g.rowBias[i]);
    }
    g.beta = 1.0f;
  }
  if (g.k <= 0) {  // an empty sum: c = beta * c (oneDNN refuses k = 0)
    for (int64_t i = 0; i < g.m; ++i) {
      float* row = g.c + i * g.ldc;
      for (int64_t j = 0; j < g.n; ++j) row[j] = g.beta == 0.0f ? 0.0f : g.beta * row[j];
    }
  } else if (gemmLibrary() == GemmLibrary::Auto && gemvShape(g)) {
    gemv(g);
  } else {
    const GemmLibrary library = libraryFor(gemmLibrary(), g.ta, g.tb, g.m, g.n, g.k);
    DFC_TRY(library == GemmLibrary::OneDnn ? oneDnnSgemm(g) : openBlasSgemm(g));
  }
  if (g.residual)
    for (int64_t i = 0; i < g.m; ++i) addResidual(g.c + i * g.ldc, g.residual + i * g.ldr, g.n);
  if (g.activation && g.activation->activation != ConvActivation::None)
    for (int64_t i = 0; i < g.m; ++i) applyActivation(*g.activation, g.c + i * g.ldc, g.n);
  return {};
}

// Panel width: kPanelFloats of output, whole 16-column vectors, at least 64
// columns; op(a) at most kPanelMaxA floats (512 KB: in L2 while the panels
// pack it again, as ResNet-50's and MobileNet's 1x1 convs; a 3x3 conv's
// im2col GEMM in training, 512 x 4608, would stream 9 MB per panel).
constexpr int64_t kPanelAlign = 16, kMinPanelColumns = 64, kPanelMaxA = int64_t{1} << 17;

}  // namespace

Status sgemmOnThisThread(const GemmCall& g) {
  if (g.m <= 0 || g.n <= 0) return {};
  // A conv's epilogue (a matmul's column bias keeps one call); each panel
  // packs op(a) again, so only while it stays in L2.
  const bool epilogue = g.rowBias || g.residual || g.activation;
  const int64_t width = std::max(kMinPanelColumns, kPanelFloats / g.m / kPanelAlign * kPanelAlign);
  if (!epilogue || g.n <= width || g.m * g.k > kPanelMaxA) return sgemmPanel(g);
  for (int64_t c0 = 0; c0 < g.n; c0 += width) DFC_TRY(sgemmPanel(columns(g, c0, std::min(g.n, c0 + width))));
  return {};
}

Status sgemm(support::ThreadPool& pool, const GemmCall& g, int splitWidth) {
  const int threads = splitWidth > 0 ? splitWidth : pool.threads();
  const bool byRows = g.m >= g.n;
  const int64_t extent = byRows ? g.m : g.n, align = byRows ? kRowAlign : kColumnAlign;
  const int64_t minPiece = std::max(kMinPieceExtent, align);
  const bool vector = gemmLibrary() == GemmLibrary::Auto && gemvShape(g);
  const int64_t minMacs = vector ? kMinSplitGemvMacs : kMinSplitMacs;
  if (threads <= 1 || g.m * g.n * g.k < minMacs || extent < 2 * minPiece) return sgemmOnThisThread(g);
  // One piece per thread: each piece packs the whole of the operand it does
  // not cut, so more pieces pack it more often. Two per thread (to let a free
  // thread take more when the machine holds the other back) made the GPT-2
  // shape's step on 2 threads x1.10-1.17 slower, LeNet and ResNet-18 b8 the same.
  const int64_t pieces = std::clamp<int64_t>(extent / minPiece, 2, threads);
  auto cut = [&](int64_t piece) {  // inner pieces start on a multiple of the library kernels' unroll
    const int64_t at = extent * piece / pieces;
    return piece == pieces ? at : at / align * align;
  };
  // One library call per piece, however the pool groups the pieces into chunks.
  return pool.parallelFor(0, pieces, 1, [&](int64_t p0, int64_t p1) -> Status {
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t lo = cut(p), hi = cut(p + 1);
      if (lo < hi) DFC_TRY(sgemmOnThisThread(byRows ? rows(g, lo, hi) : columns(g, lo, hi)));
    }
    return {};
  });
}

}  // namespace dfc::runtime::kernels
