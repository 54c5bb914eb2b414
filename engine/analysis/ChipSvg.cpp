// `dfc inspect --chip SECTION --svg FILE`: the placed grid as SVG, units
// coloured by op, links by load against capacity (over capacity red); each
// unit and link carries a <title> with its figures (a browser's tooltip).
#include <algorithm>
#include <cstdio>
#include <string>

#include "analysis/ChipModel.h"

namespace dfc::analysis {

namespace {

constexpr int kCell = 14;    // pixels per cell
constexpr int kMargin = 20;  // around the grid; the legend sits to its right

std::string num(double v) {
  char s[32];
  std::snprintf(s, sizeof s, "%.1f", v);
  return s;
}

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text)
    out += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : c == '"' ? "&quot;" : std::string(1, c);
  return out;
}

void tiles(const ChipModel& m, std::string& out) {
  for (int t = 0; t < m.tiles; ++t) {
    const int across = std::max(1, m.cols / std::max(1, m.tileCols));
    const int x = kMargin + (t % across) * m.tileCols * kCell, y = kMargin + (t / across) * m.tileRows * kCell;
    out += "<rect x='" + std::to_string(x) + "' y='" + std::to_string(y) + "' width='" +
           std::to_string(m.tileCols * kCell) + "' height='" + std::to_string(m.tileRows * kCell) +
           "' fill='#f4f4f4' stroke='#555' stroke-width='1.5'><title>tile " + std::to_string(t) + ", chip " +
           std::to_string(t / std::max(1, m.tilesPerChip)) + "</title></rect>\n";
  }
}

void units(const ChipModel& m, std::string& out) {
  const auto colours = opColours(m.ops());
  for (const auto& u : m.units) {
    const int x = kMargin + u.col * kCell + 1, y = kMargin + u.row * kCell + 1;
    out += "<rect x='" + std::to_string(x) + "' y='" + std::to_string(y) + "' width='" + std::to_string(kCell - 2) +
           "' height='" + std::to_string(kCell - 2) + "' rx='" + (u.pmu ? "5" : "1") + "' fill='" + colours.at(u.op) +
           "'><title>" +
           escape(u.nodeName + " (" + u.op + "), " + (u.pmu ? "PMU" : "PCU") + " " + u.role + ", stages " +
                  std::to_string(u.stages) + ", slice " + std::to_string(u.slice) + " at (" + std::to_string(u.row) +
                  "," + std::to_string(u.col) + ")") +
           "</title></rect>\n";
  }
}

// A link as a short line between its two switches, shifted to its side so
// that both directions of a pair show.
void links(const ChipModel& m, std::string& out) {
  for (const auto& l : m.links) {
    const double shift = l.dir == 1 || l.dir == 2 ? 2.5 : -2.5;  // E, S on one side; W, N on the other
    const bool vertical = l.dir == 0 || l.dir == 2;
    auto at = [&](int row, int col, bool x) {
      return kMargin + (x ? col : row) * kCell + kCell / 2.0 + (vertical == x ? shift : 0.0);
    };
    out += "<line x1='" + num(at(l.row, l.col, true)) + "' y1='" + num(at(l.row, l.col, false)) + "' x2='" +
           num(at(l.toRow, l.toCol, true)) + "' y2='" + num(at(l.toRow, l.toCol, false)) + "' stroke='" +
           linkColour(l.load, m.capacity) + "' stroke-width='" + (m.overCapacity(l) ? "3" : "2") + "'><title>link (" +
           std::to_string(l.row) + "," + std::to_string(l.col) + ") -&gt; (" + std::to_string(l.toRow) + "," +
           std::to_string(l.toCol) + "): " + std::to_string(l.load) + "/" + std::to_string(m.capacity) +
           " nets</title></line>\n";
  }
}

void legend(const ChipModel& m, int x, std::string& out) {
  int y = kMargin + 10;
  out += "<text x='" + std::to_string(x) + "' y='" + std::to_string(y) + "'>" + escape(m.title) + " (" +
         escape(m.hypersection) + ")</text>\n";
  const auto colours = opColours(m.ops());
  for (const std::string& op : m.ops()) {
    y += 18;
    out += "<rect x='" + std::to_string(x) + "' y='" + std::to_string(y - 10) + "' width='12' height='12' fill='" +
           colours.at(op) + "'/><text x='" + std::to_string(x + 18) + "' y='" + std::to_string(y) + "'>" + escape(op) +
           "</text>\n";
  }
  y += 26;
  const std::string links = m.capacity == 0 ? "links not recorded (PEF before 1.4)"
                                            : "links: load / capacity " + std::to_string(m.capacity) + ", most " +
                                                  std::to_string(m.maxLoad()) + ", " +
                                                  std::to_string(m.overCapacityLinks()) + " over (red)";
  out += "<text x='" + std::to_string(x) + "' y='" + std::to_string(y) + "'>" + links + "</text>\n";
}

}  // namespace

std::string chipSvg(const ChipModel& m) {
  const int gridW = m.cols * kCell, gridH = m.rows * kCell;
  const int legendX = kMargin * 2 + gridW;
  const int width = legendX + 320, height = std::max(gridH + 2 * kMargin, 80 + 18 * static_cast<int>(m.ops().size()));
  std::string out = "<svg xmlns='http://www.w3.org/2000/svg' width='" + std::to_string(width) + "' height='" +
                    std::to_string(height) + "' font-family='sans-serif' font-size='12'>\n";
  out += "<rect width='100%' height='100%' fill='white'/>\n";
  tiles(m, out);
  units(m, out);
  links(m, out);
  legend(m, legendX, out);
  out += "</svg>\n";
  return out;
}

}  // namespace dfc::analysis
