// Ring and 2D-ring allreduce: reduce-scatter then all-gather around rings of
// ranks (Baidu's and Horovod's ring allreduce), each step one MPI_Isend to the
// next rank and one MPI_Irecv from the previous.
#include <algorithm>

#include "dist/AllreducePrivate.h"

namespace dfc::dist {
namespace {

using detail::shardBegin;

// Ranks in ring order; `me` is this rank's position, `tagBase` the reduce-scatter tag (all-gather: + 1).
struct Ring {
  std::vector<int> members;
  int me = 0;
  int tagBase = detail::kTagRingReduceScatter;
  int size() const { return static_cast<int>(members.size()); }
  int next() const { return members[static_cast<size_t>((me + 1) % size())]; }
  int prev() const { return members[static_cast<size_t>((me + size() - 1) % size())]; }
};

std::span<float> shard(std::span<float> data, int parts, int i) {
  const size_t begin = shardBegin(data.size(), parts, i), end = shardBegin(data.size(), parts, i + 1);
  return data.subspan(begin, end - begin);
}

// One ring step: send `out` to the next rank while receiving `in` from the previous.
Status shiftAroundRing(Communicator& comm, const Ring& ring, int tag, std::span<const float> out, std::span<float> in) {
  auto recv = comm.postRecv(ring.prev(), tag, in);
  if (!recv) return recv.error();
  auto send = comm.postSend(ring.next(), tag, out);
  if (!send) return send.error();
  const Communicator::Ticket both[] = {*recv, *send};
  return comm.wait(both);
}

// Afterwards position i holds the ring's sum of shard (i + 1) % size.
Status reduceScatter(Communicator& comm, const Ring& ring, std::span<float> data, std::vector<float>& incoming) {
  const int m = ring.size();
  incoming.resize(data.size() / static_cast<size_t>(m) + 1);
  for (int step = 0; step + 1 < m; ++step) {
    std::span<float> out = shard(data, m, (ring.me - step + m) % m);
    std::span<float> mine = shard(data, m, (ring.me - step - 1 + 2 * m) % m);
    std::span<float> in(incoming.data(), mine.size());
    DFC_TRY(shiftAroundRing(comm, ring, ring.tagBase, out, in));
    for (size_t i = 0; i < mine.size(); ++i) mine[i] += in[i];
  }
  return {};
}

// From each position holding shard (i + 1) % size to every position holding all.
Status allGather(Communicator& comm, const Ring& ring, std::span<float> data) {
  const int m = ring.size();
  for (int step = 0; step + 1 < m; ++step) {
    std::span<float> out = shard(data, m, (ring.me + 1 - step + m) % m);
    std::span<float> in = shard(data, m, (ring.me - step + m) % m);
    DFC_TRY(shiftAroundRing(comm, ring, ring.tagBase + 1, out, in));
  }
  return {};
}

}  // namespace

Status ringAllreduceSum(Communicator& comm, std::span<float> data, PhaseLog* log) {
  const int p = comm.worldSize();
  if (p == 1) return {};
  Ring ring;
  for (int r = 0; r < p; ++r) ring.members.push_back(r);
  ring.me = comm.rank();
  std::vector<float> incoming;
  DFC_TRY(detail::timedPhase(log, "reduce-scatter", [&] { return reduceScatter(comm, ring, data, incoming); }));
  return detail::timedPhase(log, "all-gather", [&] { return allGather(comm, ring, data); });
}

Status ring2dAllreduceSum(Communicator& comm, std::span<float> data, int ranksPerHost, PhaseLog* log) {
  const int p = comm.worldSize(), local = ranksPerHost;
  if (local < 1 || p % local != 0)
    return makeError("2d-ring: " + std::to_string(local) + " ranks per host do not divide " + std::to_string(p) + " ranks");
  if (p == 1) return {};
  const int hosts = p / local, host = comm.rank() / local, localRank = comm.rank() % local;
  Ring inHost{{}, localRank, detail::kTagHostReduceScatter};
  for (int l = 0; l < local; ++l) inHost.members.push_back(host * local + l);
  Ring acrossHosts{{}, host, detail::kTagRingReduceScatter};
  for (int h = 0; h < hosts; ++h) acrossHosts.members.push_back(h * local + localRank);
  // This rank's shard after the in-host reduce-scatter: the across-host ring's whole buffer.
  std::span<float> owned = shard(data, local, (localRank + 1) % local);
  std::vector<float> incoming;
  if (local > 1)
    DFC_TRY(detail::timedPhase(log, "reduce-scatter in host", [&] { return reduceScatter(comm, inHost, data, incoming); }));
  if (hosts > 1) {
    DFC_TRY(detail::timedPhase(log, "reduce-scatter across hosts",
                               [&] { return reduceScatter(comm, acrossHosts, owned, incoming); }));
    DFC_TRY(detail::timedPhase(log, "all-gather across hosts", [&] { return allGather(comm, acrossHosts, owned); }));
  }
  if (local > 1) DFC_TRY(detail::timedPhase(log, "all-gather in host", [&] { return allGather(comm, inHost, data); }));
  return {};
}

}  // namespace dfc::dist
