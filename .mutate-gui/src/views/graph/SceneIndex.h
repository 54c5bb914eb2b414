#pragma once
// Finds the rects that meet a query rect without looking at the others: the
// scene is cut into horizontal bands and each rect listed in the bands it
// spans (a graph is a tall column of layers, so bands are selective). Used by
// GraphCanvas to paint and hit-test only what is on screen.
#include <QRectF>
#include <vector>

namespace dfc::views {

class SceneIndex {
 public:
  void build(std::vector<QRectF> rects, const QRectF& scene, double bandHeight = 256);
  // Indices of the rects meeting `area`, each once, in index order. An empty
  // rect (a straight edge's box) meets nothing: give rects some width.
  std::vector<int> query(const QRectF& area) const;
  const QRectF& rect(int i) const { return m_rects[static_cast<size_t>(i)]; }
  size_t size() const { return m_rects.size(); }

 private:
  int band(double y) const;

  std::vector<QRectF> m_rects;
  std::vector<std::vector<int>> m_bands;
  double m_top = 0;
  double m_bandHeight = 256;
};

}  // namespace dfc::views
