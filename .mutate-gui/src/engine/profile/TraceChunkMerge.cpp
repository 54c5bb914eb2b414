// Chunks of one trace, parsed apart, made one CompactTrace: strings, string
// pid/tid labels and threads get the ids a one-piece parse would give them
// (first appearance in file order), B/E marks pair across chunks, and the
// records land sorted by (thread in (pid, tid) order, ts, longer first),
// placed by every core chunk by chunk, each chunk freed once it is placed.
#include <algorithm>
#include <numeric>
#include <utility>
#include <unordered_map>

#include "profile/BeginEndPairing.h"
#include "profile/ParallelRows.h"
#include "profile/TraceChunkMerge.h"

namespace dfc::profile {
namespace {

constexpr int64_t kStringIdBase = int64_t{1} << 40;  // string pids/tids: far above real ones

struct Remap {
  std::vector<uint32_t> strings;  // chunk string id -> trace string id
  std::vector<int64_t> labels;    // chunk label -> pid/tid value
  std::vector<uint32_t> threads;  // chunk thread -> merge thread (before ordering)
};

class Merger {
 public:
  Merger(std::vector<ChunkResult>& chunks, CompactTrace& trace) : m_chunks(chunks), m_trace(trace) {}

  void run() {
    for (ChunkResult& chunk : m_chunks) m_remaps.push_back(remapChunk(chunk));
    for (size_t c = 0; c < m_chunks.size(); ++c) applyMeta(m_chunks[c], m_remaps[c]);
    for (size_t c = 0; c < m_chunks.size(); ++c) addCounters(m_chunks[c], m_remaps[c]);
    pairBeginEnd();
    orderThreads();
    placeEvents();
    sortWithinThreads();
    for (const auto& [id, label] : m_pidLabels) m_trace.processNames.try_emplace(id, label);
    for (const CompactThread& t : m_trace.threads)
      if (auto it = m_tidLabels.find(t.tid); it != m_tidLabels.end())
        m_trace.threadNames.try_emplace({t.pid, t.tid}, it->second);
  }

 private:
  uint32_t intern(const std::string& s) {
    if (s.empty()) return 0;
    auto [it, inserted] = m_ids.try_emplace(s, static_cast<uint32_t>(m_trace.strings.size()));
    if (inserted) {
      m_trace.strings.push_back(s);
      m_mirrorCategory.push_back(isMirrorCategory(s));
    }
    return it->second;
  }

  int64_t idOf(ChunkId id, const Remap& r, bool isPid, const ChunkResult& chunk) {
    if (!id.isLabel) return id.value;
    const int64_t value = r.labels[static_cast<size_t>(id.value)];
    (isPid ? m_pidLabels : m_tidLabels).try_emplace(value, chunk.labels[static_cast<size_t>(id.value)]);
    return value;
  }

  Remap remapChunk(const ChunkResult& chunk) {
    Remap r;
    r.strings.push_back(0);
    for (const std::string& s : chunk.strings) r.strings.push_back(intern(s));
    for (const std::string& label : chunk.labels) {
      auto [it, inserted] = m_labelIds.try_emplace(label, kStringIdBase + static_cast<int64_t>(m_labelIds.size()));
      r.labels.push_back(it->second);
    }
    for (size_t t = 0; t < chunk.threads.size(); ++t) {
      const auto key = std::make_pair(idOf(chunk.threads[t].pid, r, true, chunk), idOf(chunk.threads[t].tid, r, false, chunk));
      auto [it, inserted] = m_threadIds.try_emplace(key, static_cast<uint32_t>(m_threads.size()));
      if (inserted) {
        m_threads.push_back({key.first, key.second});
        m_threadEnd.push_back(chunk.threadEnd[t]);
      }
      m_threadEnd[it->second] = std::max(m_threadEnd[it->second], chunk.threadEnd[t]);
      r.threads.push_back(it->second);
    }
    return r;
  }

  void applyMeta(const ChunkResult& chunk, const Remap& r) {
    for (const ChunkMeta& m : chunk.meta) {
      const int64_t pid = idOf(m.pid, r, true, chunk), tid = idOf(m.tid, r, false, chunk);
      if (m.kind == ChunkMeta::ProcessName) m_trace.processNames[pid] = m.text;
      else if (m.kind == ChunkMeta::ThreadName) m_trace.threadNames[{pid, tid}] = m.text;
      else m_trace.threadSortIndex[{pid, tid}] = m.sortIndex;
    }
  }

  void addCounters(ChunkResult& chunk, const Remap& r) {
    for (ChunkCounter& c : chunk.counters) {
      const int64_t pid = idOf(c.pid, r, true, chunk);
      auto [it, inserted] = m_counterIds.try_emplace({pid, c.series}, m_trace.counters.size());
      if (inserted) m_trace.counters.push_back({pid, std::move(c.series), {}, {}});
      m_trace.counters[it->second].ts.push_back(c.ts);
      m_trace.counters[it->second].values.push_back(c.value);
    }
    chunk.counters = {};
  }

  CompactEvent remapped(CompactEvent e, const Remap& r) const {
    e.name = r.strings[e.name];
    e.cat = r.strings[e.cat];
    e.colorKey = r.strings[e.colorKey];
    e.section = r.strings[e.section];
    e.thread = r.threads[e.thread];
    if (m_mirrorCategory[e.cat]) e.flags |= CompactEvent::kMirror;
    return e;
  }

  // B/E marks of every chunk, in file order, paired by the one rule
  // (BeginEndPairing.h); an E's args count when its B has none (catapult).
  void pairBeginEnd() {
    std::vector<CompactEvent> marks;
    for (size_t c = 0; c < m_chunks.size(); ++c) {
      for (const CompactEvent& e : m_chunks[c].beginEnd) marks.push_back(remapped(e, m_remaps[c]));
      m_chunks[c].beginEnd = {};
    }
    std::vector<BeginEndMark> pairing;
    pairing.reserve(marks.size());
    for (const CompactEvent& e : marks) pairing.push_back({e.thread, e.ts, m_trace.strings[e.name], e.ph == 'B'});
    for (const BeginEndPair& pair : profile::pairBeginEnd(pairing, m_threadEnd)) {
      CompactEvent b = marks[pair.begin];
      b.ph = 'X';
      b.dur = pair.durUs;
      if (pair.end != BeginEndPair::kOpen && b.argsSize() == 0) {
        const CompactEvent& e = marks[pair.end];
        b.args = e.args;
        if (e.flags & CompactEvent::kHasHypersection) {
          b.colorKey = e.colorKey;
          b.flags |= CompactEvent::kHasHypersection;
        }
        if (b.section == 0) b.section = e.section;
      }
      m_paired.push_back(b);
    }
  }

  // Threads numbered in (pid, tid) order, so records sort by thread index.
  void orderThreads() {
    std::vector<uint32_t> order(m_threads.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return m_threads[a].pid != m_threads[b].pid ? m_threads[a].pid < m_threads[b].pid : m_threads[a].tid < m_threads[b].tid;
    });
    m_rank.assign(order.size(), 0);
    for (size_t i = 0; i < order.size(); ++i) {
      m_rank[order[i]] = static_cast<uint32_t>(i);
      m_trace.threads.push_back(m_threads[order[i]]);
    }
  }

  // Every record straight to its place, in file order within a thread
  // (paired B/E after the rest, as a one-piece parse). Each chunk's share of
  // each thread is counted first, so that the cores place chunks side by
  // side into disjoint ranges, each chunk freed as soon as it is placed.
  void placeEvents() {
    const size_t threads = m_trace.threads.size();
    std::vector<std::vector<size_t>> start(m_chunks.size() + 1, std::vector<size_t>(threads, 0));
    parallelItems(m_chunks.size(), [&](size_t, size_t c) {
      for (const CompactEvent& e : m_chunks[c].events) ++start[c][m_rank[m_remaps[c].threads[e.thread]]];
    });
    for (const CompactEvent& e : m_paired) ++start[m_chunks.size()][m_rank[e.thread]];
    m_offsets.assign(threads + 1, 0);
    size_t at = 0;
    for (size_t t = 0; t < threads; ++t) {  // counts -> where each chunk's records of thread t begin
      m_offsets[t] = at;
      for (auto& chunkStart : start) at += std::exchange(chunkStart[t], at);
    }
    m_offsets[threads] = at;
    m_trace.events.resize(at);
    parallelItems(m_chunks.size(), [&](size_t, size_t c) {
      for (const CompactEvent& e : m_chunks[c].events) place(remapped(e, m_remaps[c]), start[c]);
      m_chunks[c].events = {};  // freed now: the merge never holds two copies of every record
    });
    for (const CompactEvent& e : m_paired) place(e, start[m_chunks.size()]);
    m_paired = {};
  }

  void place(CompactEvent e, std::vector<size_t>& next) {
    e.thread = m_rank[e.thread];
    m_trace.events[next[e.thread]++] = e;
  }

  // Files list a thread's events in time order, mostly; where one does not,
  // its records are sorted through a permutation (4 bytes a record, where a
  // stable sort of the records would borrow a copy of the thread).
  void sortWithinThreads() {
    auto before = [](const CompactEvent& x, const CompactEvent& y) { return x.ts != y.ts ? x.ts < y.ts : x.dur > y.dur; };
    auto& events = m_trace.events;
    parallelItems(m_offsets.size() - 1, [&](size_t, size_t t) {
      const auto first = events.begin() + static_cast<std::ptrdiff_t>(m_offsets[t]);
      const auto last = events.begin() + static_cast<std::ptrdiff_t>(m_offsets[t + 1]);
      if (std::is_sorted(first, last, before)) return;
      std::vector<uint32_t> order(static_cast<size_t>(last - first));
      std::iota(order.begin(), order.end(), 0u);
      std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return before(first[a], first[b]) || (!before(first[b], first[a]) && a < b);
      });
      std::vector<CompactEvent> sorted;
      sorted.reserve(order.size());
      for (uint32_t i : order) sorted.push_back(first[i]);
      std::copy(sorted.begin(), sorted.end(), first);
    });
  }

  std::vector<ChunkResult>& m_chunks;
  CompactTrace& m_trace;
  std::vector<Remap> m_remaps;
  std::unordered_map<std::string, uint32_t> m_ids;
  std::vector<bool> m_mirrorCategory{false};  // per trace string id
  std::unordered_map<std::string, int64_t> m_labelIds;
  std::map<int64_t, std::string> m_pidLabels, m_tidLabels;
  std::map<std::pair<int64_t, int64_t>, uint32_t> m_threadIds;
  std::vector<CompactThread> m_threads;  // merge order (first appearance)
  std::vector<double> m_threadEnd;
  std::vector<uint32_t> m_rank;          // merge thread -> trace thread
  std::vector<size_t> m_offsets;         // per trace thread, into the events
  std::map<std::pair<int64_t, std::string>, size_t> m_counterIds;
  std::vector<CompactEvent> m_paired;
};

}  // namespace

void mergeChunks(std::vector<ChunkResult>& chunks, CompactTrace& trace) {
  Merger(chunks, trace).run();
  nameSectionsFromMetadata(trace);
  keyMirrorsFromOriginals(trace);
}

}  // namespace dfc::profile
