#pragma once
// Compile once, reuse: per-hypersection results of an expensive compile step
// (mapping, lowering, placement). The first instance computes and stores its
// result with the time it took; later instances find it, and the stats count
// that time as saved.
#include <chrono>
#include <map>
#include <utility>
#include <vector>

#include "partition/Plan.h"

namespace dfc::partition {

struct HypersectionStats {
  int computed = 0;         // results computed (unique hypersections seen)
  int reused = 0;           // instances that reused a stored result
  double computeMs = 0;     // time spent computing
  double msSavedEstimate = 0;  // sum over reuses of what the first computation took
};

template <typename T>
class HypersectionCache {
 public:
  // The stored result for hypersection `id` (>= 0), or nullptr. A hit counts as a reuse.
  const T* find(int id) {
    auto it = m_entries.find(id);
    if (it == m_entries.end()) return nullptr;
    ++m_stats.reused;
    m_stats.msSavedEstimate += it->second.second;
    return &it->second.first;
  }
  // Returns the stored result for `id`, computing it with `compute()` on a miss.
  // id < 0 (not a repeat): computes every time and stores nothing.
  template <typename Fn>
  T getOrCompute(int id, Fn&& compute) {
    if (id >= 0)
      if (const T* hit = find(id)) return *hit;
    auto start = std::chrono::steady_clock::now();
    T value = compute();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    ++m_stats.computed;
    m_stats.computeMs += ms;
    if (id >= 0) m_entries.emplace(id, std::make_pair(value, ms));
    return value;
  }
  // Stores what computing hypersection `id` produced and took (a miss handled by the caller).
  void insert(int id, T value, double computeMs) {
    ++m_stats.computed;
    m_stats.computeMs += computeMs;
    if (id >= 0) m_entries.emplace(id, std::make_pair(std::move(value), computeMs));
  }
  const HypersectionStats& stats() const { return m_stats; }

 private:
  std::map<int, std::pair<T, double>> m_entries;
  HypersectionStats m_stats;
};

// What the mapper computes for one subgraph, by node position (so any
// instance of the hypersection can reuse it with its own node ids).
struct MappedSection {
  std::vector<int> positions;   // indices into Subgraph::nodes
  SectionEstimate estimate;
  std::vector<OperatorTiling> tiling;  // `node` holds a position in Subgraph::nodes
  CutReason cut = {};                  // why the piece starts (the first piece takes its subgraph's)
};
struct MappedSubgraph {
  std::vector<MappedSection> sections;
};

}  // namespace dfc::partition
