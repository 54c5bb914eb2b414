// Ranks as threads: each collective is a rendezvous. Every rank deposits its
// contribution; the last to arrive combines them (in rank order, so the
// result does not depend on arrival order) and opens the next generation;
// each rank then copies the result out. The result stays until the next
// collective completes, which needs every rank to arrive again, so a slow
// reader never sees it overwritten.
#include <algorithm>
#include <condition_variable>
#include <functional>
#include <mutex>

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
                   for (float& v : s.floatResult) v /= static_cast<float>(s.size);
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

 private:
  Shared& m_shared;
  const int m_rank;
};

InProcessGroup::InProcessGroup(int size) : m_shared(std::make_unique<Shared>(std::max(size, 1))) {
  for (int r = 0; r < m_shared->size; ++r) m_members.push_back(std::make_unique<Member>(*m_shared, r));
}

InProcessGroup::~InProcessGroup() = default;

Communicator& InProcessGroup::rank(int r) { return *m_members.at(static_cast<size_t>(r)); }

int InProcessGroup::size() const { return m_shared->size; }

}  // namespace dfc::dist
