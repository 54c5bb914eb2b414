#include "graph/LayoutCache.h"

namespace dfc::views {

SharedGroupLayout LayoutCache::find(const std::string& key) const {
  const auto it = m_layouts.find(key);
  return it == m_layouts.end() ? nullptr : it->second;
}

void LayoutCache::insert(std::string key, SharedGroupLayout layout) {
  if (!m_layouts.emplace(key, std::move(layout)).second) return;
  m_order.push_back(std::move(key));
  while (m_layouts.size() > m_capacity) {
    m_layouts.erase(m_order.front());
    m_order.pop_front();
  }
}

}  // namespace dfc::views
