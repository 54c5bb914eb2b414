#pragma once
// The host's own roofline, for the points a CPU run measured: its peak FLOP/s
// (an f32 GEMM through the runtime's sgemm, the kernel every matmul and
// convolution runs on) and its memory bandwidth (a STREAM-style triad over
// arrays far larger than the caches), each the best of a few repeats after a
// warm-up, on a pool as wide as the machine. Measured once per process.
#include <map>
#include <string>
#include <vector>

#include "analysis/Roofline.h"

namespace dfc::analysis {

struct HostPeaks {
  double gflops = 0;  // f32 GEMM, best of the repeats
  double gbps = 0;    // triad bytes (two reads, one write) per second
  int threads = 0;
};

// Takes ~0.3 s the first time; later calls return the same figures.
const HostPeaks& hostPeaks();

// A section's point on the host roofline: its FLOP per call over its mean measured host time.
struct HostRooflinePoint {
  int section = 0;
  double intensity = 0;  // as the estimated point's (the compile report's FLOP per off-chip byte)
  double meanUs = 0;     // measured host time per call
  double gflops = 0;     // achieved: FLOP / meanUs
};

// One point per section of `r` that `meanUsBySection` (section id -> mean host
// microseconds per call) measured, with FLOP and a positive time.
std::vector<HostRooflinePoint> hostRooflinePoints(const Roofline& r, const std::map<int, double>& meanUsBySection);

// `dfc inspect --roofline --run ID`: the host's roofs, then one line per measured section.
std::string formatHostRoofline(const HostPeaks& host, const std::vector<HostRooflinePoint>& points,
                               const partition::Plan& plan);
// rooflineCsv's columns, then host_mean_us and host_gflops (blank for a section the run did not measure).
std::string rooflineCsvWithHost(const Roofline& r, const partition::Plan& plan,
                                const std::vector<HostRooflinePoint>& points);

}  // namespace dfc::analysis
