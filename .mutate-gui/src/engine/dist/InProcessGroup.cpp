// Ranks as threads: each collective is a rendezvous. Every rank deposits its
// contribution; the last to arrive combines them (in rank order, so the
// result does not depend on arrival order) and opens the next generation;
// each rank then copies the result out. The result stays until the next
// collective completes, which needs every rank to arrive again, so a slow
// reader never sees it overwritten.
//
// Point-to-point: a send copies its data into the receiver's mailbox (one
// queue per sender, receiver and tag) and is done at once; a receive waits for
// its queue's front message. A receive posted earlier on the same queue is
// served first, so receives match sends in posting order, as in MPI.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <tuple>

#include "dist/Communicator.h"

namespace dfc::dist {

struct InProcessGroup::Shared {
  explicit Shared(int n) : size(n), floats(static_cast<size_t>(n)), words(static_cast<size_t>(n)), texts(static_cast<size_t>(n)) {}
  const int size;
  std::mutex mutex;
  std::condition_variable opened;
  uint64_t generation = 0;
  int arrived = 0;
  std::vector<std::vector<float>> floats;  // per rank: the contribution
  std::vector<uint64_t> words;
  std::vector<std::string> texts;
  std::vector<float> floatResult;
  std::vector<uint64_t> wordResult;
  std::vector<std::string> textResult;
  std::map<std::tuple<int, int, int>, std::deque<std::vector<float>>> mail;  // (from, to, tag) -> messages
  std::condition_variable mailArrived;

  // Deposits (under the lock), waits for every rank; the last one runs `combine`.
  void rendezvous(const std::function<void()>& deposit, const std::function<void()>& combine,
                  const std::function<void()>& collect) {
    std::unique_lock lock(mutex);
    deposit();
    const uint64_t mine = generation;
    if (++arrived == size) {
      combine();
      arrived = 0;
      ++generation;
      opened.notify_all();
    } else {
      opened.wait(lock, [&] { return generation != mine; });
    }
    collect();
  }
};

class InProcessGroup::Member final : public Communicator {
 public:
  Member(Shared& shared, int rank) : m_shared(shared), m_rank(rank) {}
  int rank() const override { return m_rank; }
  int worldSize() const override { return m_shared.size; }
  std::string describe() const override { return "in-process group of " + std::to_string(m_shared.size); }

  Status allreduceAverage(std::span<float> data) override {
    Shared& s = m_shared;
    const auto r = static_cast<size_t>(m_rank);
    bool sizesAgree = true;
    s.rendezvous([&] { s.floats[r].assign(data.begin(), data.end()); },
                 [&] {
                   s.floatResult.assign(s.floats[0].size(), 0.0f);
                   for (const auto& part : s.floats) {
                     if (part.size() != s.floatResult.size()) continue;
                     for (size_t i = 0; i < part.size(); ++i) s.floatResult[i] += part[i];
                   }
                   const float inv = 1.0f / static_cast<float>(s.size);  // as MpiCommunicator: times the inverse
                   for (float& v : s.floatResult) v *= inv;
                 },
                 [&] {
                   sizesAgree = s.floatResult.size() == data.size();
                   if (sizesAgree) std::copy(s.floatResult.begin(), s.floatResult.end(), data.begin());
                 });
    if (!sizesAgree) return makeError("allreduce: ranks passed buffers of different sizes");
    return {};
  }

  Expected<std::vector<uint64_t>> allgather(uint64_t value) override {
    Shared& s = m_shared;
    std::vector<uint64_t> out;
    s.rendezvous([&] { s.words[static_cast<size_t>(m_rank)] = value; }, [&] { s.wordResult = s.words; },
                 [&] { out = s.wordResult; });
    return out;
  }

  Expected<std::vector<std::string>> gatherToRoot(const std::string& text) override {
    Shared& s = m_shared;
    std::vector<std::string> out;
    s.rendezvous([&] { s.texts[static_cast<size_t>(m_rank)] = text; }, [&] { s.textResult = s.texts; },
                 [&] {
                   if (m_rank == 0) out = s.textResult;
                 });
    return out;
  }

  Expected<Ticket> postSend(int to, int tag, std::span<const float> data) override {
    if (to < 0 || to >= m_shared.size || to == m_rank) return makeError("send to rank " + std::to_string(to) + ": no such peer");
    std::lock_guard lock(m_shared.mutex);
    m_shared.mail[{m_rank, to, tag}].emplace_back(data.begin(), data.end());
    m_shared.mailArrived.notify_all();
    return Ticket{0};  // buffered: complete already
  }

  Expected<Ticket> postRecv(int from, int tag, std::span<float> data) override {
    if (from < 0 || from >= m_shared.size || from == m_rank)
      return makeError("receive from rank " + std::to_string(from) + ": no such peer");
    const Ticket ticket = ++m_lastTicket;
    m_pending[ticket] = {from, tag, data};
    m_order[{from, tag}].push_back(ticket);
    return ticket;
  }

  Status wait(std::span<const Ticket> tickets) override {
    for (Ticket t : tickets)
      while (m_pending.count(t)) DFC_TRY(completeOldestOn(m_pending.at(t).from, m_pending.at(t).tag));
    return {};
  }

  Expected<int> ranksPerHost() override { return m_shared.size; }

 private:
  struct PendingRecv {
    int from = 0, tag = 0;
    std::span<float> data;
  };

  // The oldest receive posted on (from, tag) takes the next message from there.
  Status completeOldestOn(int from, int tag) {
    auto& order = m_order[{from, tag}];
    const Ticket ticket = order.front();
    const PendingRecv recv = m_pending.at(ticket);
    std::unique_lock lock(m_shared.mutex);
    auto& queue = m_shared.mail[{from, m_rank, tag}];
    constexpr auto kPatience = std::chrono::seconds(120);  // a peer that never sends fails the test instead of hanging it
    if (!m_shared.mailArrived.wait_for(lock, kPatience, [&] { return !queue.empty(); }))
      return makeError("rank " + std::to_string(m_rank) + ": no message from rank " + std::to_string(from) + " (tag " +
                       std::to_string(tag) + ") in 120 s");
    std::vector<float> message = std::move(queue.front());
    queue.pop_front();
    lock.unlock();
    order.pop_front();
    m_pending.erase(ticket);
    if (message.size() != recv.data.size())
      return makeError("rank " + std::to_string(m_rank) + " expected " + std::to_string(recv.data.size()) +
                       " floats from rank " + std::to_string(from) + ", got " + std::to_string(message.size()));
    std::copy(message.begin(), message.end(), recv.data.begin());
    return {};
  }

  Shared& m_shared;
  const int m_rank;
  Ticket m_lastTicket = 0;
  std::map<Ticket, PendingRecv> m_pending;            // posted receives not yet waited on
  std::map<std::pair<int, int>, std::deque<Ticket>> m_order;  // (from, tag) -> its receives, oldest first
};

InProcessGroup::InProcessGroup(int size) : m_shared(std::make_unique<Shared>(std::max(size, 1))) {
  for (int r = 0; r < m_shared->size; ++r) m_members.push_back(std::make_unique<Member>(*m_shared, r));
}

InProcessGroup::~InProcessGroup() = default;

Communicator& InProcessGroup::rank(int r) { return *m_members.at(static_cast<size_t>(r)); }

int InProcessGroup::size() const { return m_shared->size; }

}  // namespace dfc::dist
