#pragma once
// NameSet: "have I seen this name?" over names that outlive the set (views,
// no copies), in one flat open-addressing table sized up front: no allocation
// per name. Used where every value/node name of a graph is checked for
// uniqueness (the verifier, the pass rewriter), which happens on every pass.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

namespace dfc::support {

class NameSet {
 public:
  // Room for `expected` names at a load factor of at most 3/4 (more still work, slower).
  explicit NameSet(size_t expected) {
    size_t capacity = 16;
    while (capacity * 3 < expected * 4) capacity <<= 1;
    m_slots.assign(capacity, Slot{});
  }

  // Adds `name` (which must stay alive as long as the set); false if already there.
  bool insert(std::string_view name) {
    if (4 * (m_size + 1) > 3 * m_slots.size()) grow();
    const char* data = name.data() ? name.data() : "";  // null marks an empty slot
    auto size = static_cast<uint32_t>(name.size());
    auto hash = static_cast<uint32_t>(std::hash<std::string_view>{}(name));
    const size_t mask = m_slots.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      Slot& s = m_slots[i];
      if (!s.data) {
        s = Slot{data, size, hash};
        ++m_size;
        return true;
      }
      if (s.hash == hash && s.size == size && std::string_view(s.data, s.size) == name) return false;
    }
  }

 private:
  struct Slot {  // 16 bytes: the table for a big graph stays small
    const char* data = nullptr;
    uint32_t size = 0;
    uint32_t hash = 0;
  };

  void grow() {
    std::vector<Slot> old = std::move(m_slots);
    m_slots.assign(old.size() * 2, Slot{});
    const size_t mask = m_slots.size() - 1;
    for (const Slot& s : old)
      if (s.data)
        for (size_t i = s.hash & mask;; i = (i + 1) & mask)
          if (!m_slots[i].data) {
            m_slots[i] = s;
            break;
          }
  }

  std::vector<Slot> m_slots;
  size_t m_size = 0;
};

}  // namespace dfc::support
