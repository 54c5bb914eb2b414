#include "analysis/HostRoofline.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "runtime/kernels/Sgemm.h"
#include "support/ThreadPool.h"

namespace dfc::analysis {
namespace {

constexpr int kRepeats = 3;  // best of, after one warm-up

template <typename Fn>
double bestSeconds(Fn&& fn) {
  fn();  // warm-up: first touch of the pages, the library's kernel choice
  double best = 1e30;
  for (int i = 0; i < kRepeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

// A square GEMM large enough that every thread gets full-size tiles.
double gemmGflops(support::ThreadPool& pool) {
  constexpr int64_t n = 1024;
  std::vector<float> a(n * n, 0.5f), b(n * n, 0.25f), c(n * n, 0.0f);
  runtime::kernels::GemmCall g;
  g.m = g.n = g.k = n;
  g.a = a.data();
  g.b = b.data();
  g.c = c.data();
  g.lda = g.ldb = g.ldc = n;
  const double seconds = bestSeconds([&] { (void)runtime::kernels::sgemm(pool, g); });
  return 2.0 * n * n * n / seconds / 1e9;
}

// a = b + s * c over 3 x 64 MiB: two streams in, one out.
double triadGbps(support::ThreadPool& pool) {
  constexpr int64_t n = int64_t{16} << 20;
  std::vector<float> a(n, 0.0f), b(n, 1.0f), c(n, 2.0f);
  const double seconds = bestSeconds([&] {
    (void)pool.parallelFor(0, n, 1 << 16, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        a[static_cast<size_t>(i)] = b[static_cast<size_t>(i)] + 3.0f * c[static_cast<size_t>(i)];
    });
  });
  return 3.0 * sizeof(float) * static_cast<double>(n) / seconds / 1e9;
}

HostPeaks measure() {
  support::ThreadPool pool;
  HostPeaks p;
  p.threads = pool.threads();
  p.gflops = gemmGflops(pool);
  p.gbps = triadGbps(pool);
  return p;
}

}  // namespace

const HostPeaks& hostPeaks() {
  static const HostPeaks peaks = measure();  // thread-safe once per process
  return peaks;
}

std::vector<HostRooflinePoint> hostRooflinePoints(const Roofline& r, const std::map<int, double>& meanUsBySection) {
  std::vector<HostRooflinePoint> out;
  for (const RooflinePoint& p : r.points) {
    const auto it = meanUsBySection.find(p.section);
    if (it == meanUsBySection.end() || it->second <= 0 || p.tflop <= 0) continue;
    out.push_back({p.section, p.intensity, it->second, p.tflop * 1e12 / (it->second * 1e-6) / 1e9});
  }
  return out;
}

std::string formatHostRoofline(const HostPeaks& host, const std::vector<HostRooflinePoint>& points,
                               const partition::Plan& plan) {
  char line[200];
  std::snprintf(line, sizeof line,
                "host roofs (measured, %d threads): gemm %.6g GFLOP/s, triad %.6g GB/s; ridge at %.6g FLOP/byte\n",
                host.threads, host.gflops, host.gbps, host.gbps > 0 ? host.gflops / host.gbps : 0.0);
  std::string out = line;
  std::snprintf(line, sizeof line, "%4s  %-28s %12s %14s %14s %12s\n", "id", "section", "FLOP/byte", "host_us/call",
                "host_GFLOP/s", "of_host_roof");
  out += line;
  for (const HostRooflinePoint& p : points) {
    const double roof = std::min(host.gflops, p.intensity > 0 ? p.intensity * host.gbps : host.gflops);
    std::snprintf(line, sizeof line, "%4d  %-28.28s %12.4f %14.3f %14.6f %11.1f%%\n", p.section,
                  plan.sections[static_cast<size_t>(p.section)].name.c_str(), p.intensity, p.meanUs, p.gflops,
                  roof > 0 ? 100 * p.gflops / roof : 0.0);
    out += line;
  }
  return out;
}

std::string rooflineCsvWithHost(const Roofline& r, const partition::Plan& plan,
                                const std::vector<HostRooflinePoint>& points) {
  std::map<int, const HostRooflinePoint*> measured;
  for (const HostRooflinePoint& p : points) measured[p.section] = &p;
  const std::string base = rooflineCsv(r, plan);
  std::string out;
  size_t row = 0;  // 0: the header
  for (size_t start = 0; start < base.size();) {
    const size_t end = base.find('\n', start);
    out.append(base, start, end - start);
    if (row == 0) {
      out += ",host_mean_us,host_gflops";
    } else if (const auto it = measured.find(r.points[row - 1].section); it != measured.end()) {
      char cells[64];
      std::snprintf(cells, sizeof cells, ",%.17g,%.17g", it->second->meanUs, it->second->gflops);
      out += cells;
    } else {
      out += ",,";
    }
    out += '\n';
    start = end + 1;
    ++row;
  }
  return out;
}

}  // namespace dfc::analysis
