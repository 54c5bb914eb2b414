// Double binary tree allreduce (NCCL's): the ranks form two in-order binary
// trees in which (nearly) every rank that is a leaf of one is an inner node of
// the other, so both halves of the buffer use every rank's links. Each tree
// reduces its half towards its root chunk by chunk (a rank adds its children's
// chunk k and passes it up while they already work on chunk k + 1), then
// broadcasts it back down the same way.
#include <algorithm>
#include <bit>

#include "dist/AllreducePrivate.h"

namespace dfc::dist {
namespace {

// Node v (1-based) of an in-order binary tree over 1..n: the nodes whose lowest
// set bit is b sit at level log2(b); the root is the highest power of two <= n.
// Nodes above n are virtual and skipped: a real node's child is the first real
// one down the left edge below the missing one.
int rightChild(int v, int n) {
  const int b = v & -v;
  int c = v + b / 2, step = b / 4;
  while (c > n) {
    if (step == 0) return 0;
    c -= step;
    step /= 2;
  }
  return b > 1 ? c : 0;
}

int parentOf(int v, int n) {
  const int root = std::bit_floor(static_cast<unsigned>(n));
  if (v == root) return 0;
  int u = v, b = v & -v;
  for (;;) {
    const int up = (u / b) % 4 == 1 ? u + b : u - b;  // the neighbour at b's distance whose lowest bit is 2b
    if (up <= n) return up;
    u = up;
    b *= 2;
  }
}

// Tree 0 puts rank r at position r; tree 1 mirrors it (even counts) or shifts
// it by one (odd counts) so leaves of one are inner nodes of the other.
int positionOf(int rank, int n, int which) {
  if (which == 0) return rank;
  return n % 2 == 0 ? n - 1 - rank : (rank + 1) % n;
}
int rankAt(int position, int n, int which) {
  if (which == 0) return position;
  return n % 2 == 0 ? n - 1 - position : (position + n - 1) % n;
}

struct TreeHalf {
  TreeLinks links;
  std::span<float> part;  // the half of the buffer this tree reduces
  int which = 0;
  size_t chunks(size_t chunk) const { return (part.size() + chunk - 1) / chunk; }
  std::span<float> chunkAt(size_t k, size_t chunk) const {
    const size_t begin = std::min(part.size(), k * chunk);
    return part.subspan(begin, std::min(chunk, part.size() - begin));
  }
};

// Chunk k of one tree: wait for the children's partial sums, add them, pass the result up.
Status reduceChunk(Communicator& comm, const TreeHalf& t, size_t k, size_t chunk, std::vector<float>& incoming,
                   std::vector<Communicator::Ticket>& sends) {
  std::span<float> mine = t.chunkAt(k, chunk);
  std::vector<Communicator::Ticket> recvs;
  for (size_t c = 0; c < t.links.children.size(); ++c) {
    auto ticket = comm.postRecv(t.links.children[c], detail::kTagTreeReduce + t.which,
                                std::span<float>(incoming.data() + c * chunk, mine.size()));
    if (!ticket) return ticket.error();
    recvs.push_back(*ticket);
  }
  DFC_TRY(comm.wait(recvs));
  for (size_t c = 0; c < t.links.children.size(); ++c)
    for (size_t i = 0; i < mine.size(); ++i) mine[i] += incoming[c * chunk + i];
  if (t.links.parent < 0) return {};
  auto send = comm.postSend(t.links.parent, detail::kTagTreeReduce + t.which, mine);
  if (!send) return send.error();
  sends.push_back(*send);
  return {};
}

Status reduceUp(Communicator& comm, const TreeHalf (&trees)[2], size_t chunk) {
  std::vector<float> incoming(2 * chunk);
  std::vector<Communicator::Ticket> sends;
  const size_t rounds = std::max(trees[0].chunks(chunk), trees[1].chunks(chunk));
  for (size_t k = 0; k < rounds; ++k)
    for (const TreeHalf& t : trees)
      if (k < t.chunks(chunk)) DFC_TRY(reduceChunk(comm, t, k, chunk, incoming, sends));
  return comm.wait(sends);  // the chunks sent up stay untouched until the broadcast overwrites them
}

Status broadcastDown(Communicator& comm, const TreeHalf (&trees)[2], size_t chunk) {
  std::vector<Communicator::Ticket> recvs[2], sends;
  for (const TreeHalf& t : trees)
    if (t.links.parent >= 0)
      for (size_t k = 0; k < t.chunks(chunk); ++k) {
        auto ticket = comm.postRecv(t.links.parent, detail::kTagTreeBroadcast + t.which, t.chunkAt(k, chunk));
        if (!ticket) return ticket.error();
        recvs[t.which].push_back(*ticket);
      }
  const size_t rounds = std::max(trees[0].chunks(chunk), trees[1].chunks(chunk));
  for (size_t k = 0; k < rounds; ++k)
    for (const TreeHalf& t : trees) {
      if (k >= t.chunks(chunk)) continue;
      if (t.links.parent >= 0) DFC_TRY(comm.wait(std::span(&recvs[t.which][k], 1)));
      for (int child : t.links.children) {
        auto send = comm.postSend(child, detail::kTagTreeBroadcast + t.which, t.chunkAt(k, chunk));
        if (!send) return send.error();
        sends.push_back(*send);
      }
    }
  return comm.wait(sends);
}

}  // namespace

TreeLinks doubleTreeLinks(int worldSize, int rank, int which) {
  const int n = worldSize, v = positionOf(rank, n, which) + 1;
  TreeLinks links;
  if (const int up = parentOf(v, n); up > 0) links.parent = rankAt(up - 1, n, which);
  const int b = v & -v;
  if (b > 1) links.children.push_back(rankAt(v - b / 2 - 1, n, which));
  if (const int right = rightChild(v, n); right > 0) links.children.push_back(rankAt(right - 1, n, which));
  return links;
}

Status treeAllreduceSum(Communicator& comm, std::span<float> data, size_t chunkFloats, PhaseLog* log) {
  const int p = comm.worldSize();
  if (p == 1 || data.empty()) return {};
  const size_t half = data.size() / 2;
  // No chunk beyond the larger half: the receive buffers are sized by it.
  const size_t chunk = std::min(std::max<size_t>(chunkFloats, 1), data.size() - half);
  const TreeHalf trees[2] = {{doubleTreeLinks(p, comm.rank(), 0), data.first(half), 0},
                             {doubleTreeLinks(p, comm.rank(), 1), data.subspan(half), 1}};
  DFC_TRY(detail::timedPhase(log, "reduce", [&] { return reduceUp(comm, trees, chunk); }));
  return detail::timedPhase(log, "broadcast", [&] { return broadcastDown(comm, trees, chunk); });
}

}  // namespace dfc::dist
