#include "arch/OperatorTiling.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace dfc::arch {
namespace {

double bytesOf(const ir::Graph& g, ir::ValueId v) { return static_cast<double>(g.value(v).type.byteSize()); }

struct Candidate {
  const char* dim = nullptr;
  double extraBytes = 0;
  std::vector<int64_t> tileShape;
};

int64_t tileOf(double extent, int passes) { return static_cast<int64_t>(std::ceil(extent / passes)); }

// The fewest passes whose tile fits the budget (0: none up to kMaxTilePasses).
int fewestPasses(const CostModel& cost, const ir::Graph& g, const ir::Node& n, int pmuBudget) {
  auto fits = [&](int p) { return cost.opCost(g, n, p).pmus <= pmuBudget; };
  int lo = 1, hi = 2;  // fits(lo) is false
  while (!fits(hi)) {
    if (hi >= kMaxTilePasses) return 0;
    lo = hi;
    hi = std::min(kMaxTilePasses, hi * 2);
  }
  while (hi - lo > 1) {
    int mid = lo + (hi - lo) / 2;
    (fits(mid) ? hi : lo) = mid;
  }
  return hi;
}

// GEMM: split the resident operand (B) by batch, columns or rows of K; a
// resident (accumulated) result by its rows.
std::vector<Candidate> gemmCandidates(const ir::Graph& g, const ir::Node& n, const OpCost& c, const GemmShape& s,
                                      int p) {
  std::vector<Candidate> out;
  const double extra = p - 1;
  const bool residentB = c.inputResident.size() > 1 && c.inputResident[1];
  const double bytesA = bytesOf(g, n.inputs[0]), bytesC = bytesOf(g, n.outputs[0]);
  auto shape = [&](double b, double m, double nn, double k) {
    return std::vector<int64_t>{tileOf(s.batch, static_cast<int>(b)), tileOf(s.m, static_cast<int>(m)),
                                tileOf(s.n, static_cast<int>(nn)), tileOf(s.k, static_cast<int>(k))};
  };
  if (residentB) {
    const bool batchedB = static_cast<double>(g.value(n.inputs[1]).type.numElements()) >= s.batch * s.k * s.n;
    if (batchedB && s.batch > 1 && s.batch >= p) out.push_back({"batch", 0, shape(p, 1, 1, 1)});
    if (s.n >= p) out.push_back({"columns", extra * bytesA, shape(1, 1, p, 1)});
    if (s.k >= p) out.push_back({"reduction", 2 * extra * bytesC, shape(1, 1, 1, p)});
  } else if (s.m >= p) {  // the result is what is resident (a weight gradient accumulating)
    double streamed = 0;
    for (ir::ValueId v : n.inputs) streamed += bytesOf(g, v);
    out.push_back({"rows", extra * streamed, shape(1, p, 1, 1)});
  }
  return out;
}

// Elementwise and layout ops: the resident tensors by their leading axis; an
// operand of another shape (indices, a broadcast) is streamed on every pass.
std::vector<Candidate> rowCandidates(const ir::Graph& g, const ir::Node& n, const OpCost& c, int p) {
  const ir::TensorType* biggest = nullptr;
  auto consider = [&](ir::ValueId v) {
    const ir::TensorType& t = g.value(v).type;
    if (!biggest || t.byteSize() > biggest->byteSize()) biggest = &t;
  };
  for (size_t i = 0; i < n.inputs.size(); ++i)
    if (c.inputResident[i]) consider(n.inputs[i]);
  for (size_t k = 0; k < n.outputs.size(); ++k)
    if (c.outputPmus[k] > 2) consider(n.outputs[k]);
  if (!biggest || biggest->shape.empty() || biggest->shape[0] < p) return {};
  double streamed = 0;
  for (size_t i = 0; i < n.inputs.size(); ++i)
    if (!c.inputResident[i] && g.value(n.inputs[i]).type.shape != biggest->shape) streamed += bytesOf(g, n.inputs[i]);
  std::vector<int64_t> tile = biggest->shape;
  tile[0] = tileOf(static_cast<double>(tile[0]), p);
  return {{"rows", (p - 1) * streamed, std::move(tile)}};
}

}  // namespace

std::optional<partition::OperatorTiling> planOperatorTiling(const CostModel& cost, const ir::Graph& g,
                                                            const ir::Node& n, int pmuBudget, int pcuBudget) {
  const OpCost whole = cost.opCost(g, n);
  if (whole.minPcus > pcuBudget) return std::nullopt;
  const int passes = fewestPasses(cost, g, n, pmuBudget);
  if (passes == 0) return std::nullopt;
  GemmShape shape;
  const bool gemm = cost.gemmShape(g, n, shape);
  std::vector<Candidate> candidates =
      gemm ? gemmCandidates(g, n, whole, shape, passes) : rowCandidates(g, n, whole, passes);
  if (candidates.empty()) return std::nullopt;
  // The first of the cheapest: candidates come in order of preference.
  auto best = std::min_element(candidates.begin(), candidates.end(),
                               [](const Candidate& a, const Candidate& b) { return a.extraBytes < b.extraBytes; });
  partition::OperatorTiling t;
  t.node = n.id;
  t.dim = best->dim;
  t.passes = passes;
  t.gemm = gemm;
  t.tileShape = std::move(best->tileShape);
  t.pmusPerPass = cost.opCost(g, n, passes).pmus;
  t.extraDdrBytes = best->extraBytes;
  return t;
}

void applyTiling(const CostModel& cost, const ir::Graph& g, const partition::OperatorTiling& t,
                 partition::SectionEstimate& e) {
  const ArchSpec& a = cost.arch();
  const double fillUs = a.pcuStages / (a.clockGhz * 1e3);  // one operator: one pass through its stages
  const double chipUs = std::max(0.0, e.latencyUs - std::max(e.computeUs, e.memoryUs) - fillUs);
  e.pmus -= cost.opCost(g, g.node(t.node)).pmus - t.pmusPerPass;
  e.ddrBytes += t.extraDdrBytes;
  e.memoryUs = std::max(e.memoryUs, e.ddrBytes / (a.offChipGbps() * 1e9) * 1e6);
  e.latencyUs = std::max(e.computeUs, e.memoryUs) + fillUs * t.passes + chipUs;
}

std::string describeTiling(const partition::OperatorTiling& t) {
  std::string shape;
  for (int64_t d : t.tileShape) shape += (shape.empty() ? "" : "x") + std::to_string(d);
  std::string s = std::to_string(t.passes) + " passes of " + t.dim + " tiles " + shape;
  if (t.gemm) s += " (batch x M x N x K)";
  return s + ", " + std::to_string(t.pmusPerPass) + " PMUs each";
}

}  // namespace dfc::arch
