#pragma once
// NameSet: "have I seen this name?" over names that outlive the set (views,
// no copies), in one flat open-addressing table sized up front: no allocation
// per name. Used where every value/node name of a graph is checked for
// uniqueness (the verifier, the pass rewriter), which happens on every pass.
// StringSet: the same over copies of the names, kept in large shared blocks.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

namespace dfc::support {

class NameSet {
 public:
  // Room for `expected` names at a load factor of at most 1/2 (more still work: the table grows).
  explicit NameSet(size_t expected) {
    size_t capacity = 16;
    while (capacity < 2 * expected) capacity <<= 1;
    m_slots.assign(capacity, Slot{});
  }

  // Adds `name` (which must stay alive as long as the set); false if already there.
  bool insert(std::string_view name) {
    return insertWith(name, [](std::string_view n) { return n; });
  }
  // Adds `name` if absent, keeping the view keep(name) returns (e.g. a copy it made); false if already there.
  template <typename Keep>
  bool insertWith(std::string_view name, Keep&& keep) {
    if (2 * (m_used + 1) > m_slots.size()) grow();
    uint32_t hash = hashOf(name);
    Slot& s = m_slots[slotOf(name, hash)];
    if (s.data) return false;
    std::string_view kept = keep(name);
    s = Slot{kept.data() ? kept.data() : "", static_cast<uint32_t>(kept.size()), hash};  // null marks a free slot
    ++m_used;
    return true;
  }
  bool contains(std::string_view name) const { return m_slots[slotOf(name, hashOf(name))].data != nullptr; }
  // Removes `name` if there; its slot stays taken (a tombstone) until the table grows.
  void erase(std::string_view name) {
    Slot& s = m_slots[slotOf(name, hashOf(name))];
    if (s.data) s = Slot{tombstone(), 0, 0};
  }

 private:
  struct Slot {  // 16 bytes: the table for a big graph stays small
    const char* data = nullptr;
    uint32_t size = 0;
    uint32_t hash = 0;
  };

  static const char* tombstone() {
    static const char mark = 0;
    return &mark;
  }
  static uint32_t hashOf(std::string_view name) {
    return static_cast<uint32_t>(std::hash<std::string_view>{}(name));
  }
  // The slot holding `name`, or the free slot where it would go.
  size_t slotOf(std::string_view name, uint32_t hash) const {
    const size_t mask = m_slots.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      const Slot& s = m_slots[i];
      if (!s.data) return i;
      if (s.hash == hash && s.size == name.size() && s.data != tombstone() && std::string_view(s.data, s.size) == name)
        return i;
    }
  }

  void grow() {
    std::vector<Slot> old = std::move(m_slots);
    m_slots.assign(old.size() * 2, Slot{});
    const size_t mask = m_slots.size() - 1;
    m_used = 0;
    for (const Slot& s : old) {
      if (!s.data || s.data == tombstone()) continue;
      size_t i = s.hash & mask;
      while (m_slots[i].data) i = (i + 1) & mask;
      m_slots[i] = s;
      ++m_used;
    }
  }

  std::vector<Slot> m_slots;
  size_t m_used = 0;  // names and tombstones
};

// The unique-name sets of the graph builder, autograd and the pass rewriter,
// which hold every name of a graph: one allocation per 64 KiB of names, not one per name.
class StringSet {
 public:
  explicit StringSet(size_t expected = 0) : m_set(expected) {}

  bool contains(std::string_view name) const { return m_set.contains(name); }
  // Adds a copy of `name`; false if already there.
  bool insert(std::string_view name) {
    return m_set.insertWith(name, [this](std::string_view n) { return store(n); });
  }
  void erase(std::string_view name) { m_set.erase(name); }  // its bytes stay in their block

 private:
  std::string_view store(std::string_view name) {
    if (name.empty()) return std::string_view("", 0);
    if (name.size() > m_left) {
      size_t block = std::max(kBlock, name.size());
      m_blocks.emplace_back(new char[block]);
      m_next = m_blocks.back().get();
      m_left = block;
    }
    std::memcpy(m_next, name.data(), name.size());
    std::string_view kept(m_next, name.size());
    m_next += name.size();
    m_left -= name.size();
    return kept;
  }

  static constexpr size_t kBlock = 64 * 1024;
  NameSet m_set;
  std::vector<std::unique_ptr<char[]>> m_blocks;
  char* m_next = nullptr;
  size_t m_left = 0;
};

}  // namespace dfc::support
