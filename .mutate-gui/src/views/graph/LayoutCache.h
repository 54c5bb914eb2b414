#pragma once
// Group layouts kept as values by (structure, fold state, box sizes): a group
// laid out once is placed again for free, in this request (80 identical
// layers) and in later ones (fold one layer back: only the ancestors change).
// Lives on the layout thread; not thread-safe.
#include <deque>
#include <string>
#include <unordered_map>

#include "graph/GroupLayout.h"

namespace dfc::views {

class LayoutCache {
 public:
  explicit LayoutCache(size_t capacity = 4096) : m_capacity(capacity) {}
  SharedGroupLayout find(const std::string& key) const;
  // Forgets the oldest entries beyond the capacity.
  void insert(std::string key, SharedGroupLayout layout);
  size_t size() const { return m_layouts.size(); }

 private:
  size_t m_capacity;
  std::unordered_map<std::string, SharedGroupLayout> m_layouts;
  std::deque<std::string> m_order;  // oldest first
};

}  // namespace dfc::views
