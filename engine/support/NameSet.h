#pragma once
// NameSet: "have I seen this name?" over names that outlive the set (views,
// no copies), in one flat open-addressing table sized up front: no allocation
// per name. Used where every value/node name of a graph is checked for
// uniqueness (the verifier, the pass rewriter), which happens on every pass.
#include <cstddef>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

namespace dfc::support {

class NameSet {
 public:
  // Room for `expected` names at a load factor of at most 1/2 (more still work, slower).
  explicit NameSet(size_t expected) {
    size_t capacity = 16;
    while (capacity < 2 * expected) capacity <<= 1;
    m_slots.assign(capacity, Slot{});
    m_mask = capacity - 1;
  }

  // Adds `name` (which must stay alive as long as the set); false if already there.
  bool insert(std::string_view name) {
    if (2 * (m_size + 1) > m_slots.size()) grow();
    size_t hash = std::hash<std::string_view>{}(name);
    for (size_t i = hash & m_mask;; i = (i + 1) & m_mask) {
      Slot& s = m_slots[i];
      if (!s.used) {
        s = Slot{hash, name, true};
        ++m_size;
        return true;
      }
      if (s.hash == hash && s.name == name) return false;
    }
  }

 private:
  struct Slot {
    size_t hash = 0;
    std::string_view name;
    bool used = false;
  };

  void grow() {
    std::vector<Slot> old = std::move(m_slots);
    m_slots.assign(old.size() * 2, Slot{});
    m_mask = m_slots.size() - 1;
    for (const Slot& s : old)
      if (s.used)
        for (size_t i = s.hash & m_mask;; i = (i + 1) & m_mask)
          if (!m_slots[i].used) {
            m_slots[i] = s;
            break;
          }
  }

  std::vector<Slot> m_slots;
  size_t m_mask = 0;
  size_t m_size = 0;
};

}  // namespace dfc::support
