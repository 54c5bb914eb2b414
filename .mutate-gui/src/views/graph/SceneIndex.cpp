#include "graph/SceneIndex.h"

#include <algorithm>
#include <cmath>

namespace dfc::views {

void SceneIndex::build(std::vector<QRectF> rects, const QRectF& scene, double bandHeight) {
  m_rects = std::move(rects);
  m_top = scene.top();
  m_bandHeight = std::max(1.0, bandHeight);
  const double bands = std::floor(std::max(0.0, scene.height()) / m_bandHeight) + 1;
  m_bands.assign(static_cast<size_t>(std::min(bands, 1e6)), {});
  for (size_t i = 0; i < m_rects.size(); ++i) {
    const int last = band(m_rects[i].bottom());
    for (int b = band(m_rects[i].top()); b <= last; ++b) m_bands[static_cast<size_t>(b)].push_back(static_cast<int>(i));
  }
}

int SceneIndex::band(double y) const {
  const double at = std::floor((y - m_top) / m_bandHeight);
  const double last = m_bands.empty() ? 0.0 : static_cast<double>(m_bands.size() - 1);
  return static_cast<int>(std::clamp(at, 0.0, std::max(0.0, last)));
}

std::vector<int> SceneIndex::query(const QRectF& area) const {
  std::vector<int> out;
  if (m_bands.empty()) return out;
  const int last = band(area.bottom());
  for (int b = band(area.top()); b <= last; ++b)
    for (int i : m_bands[static_cast<size_t>(b)])
      if (m_rects[static_cast<size_t>(i)].intersects(area)) out.push_back(i);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace dfc::views
