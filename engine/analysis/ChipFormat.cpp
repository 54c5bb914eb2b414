// `dfc inspect --chip`: the chip model as a text grid or as SVG.
#include <algorithm>
#include <cstdio>
#include <map>

#include "analysis/ChipModel.h"

namespace dfc::analysis {

namespace {

// Tableau's 20 without its two reds (red means over capacity), and two darker ones.
constexpr const char* kOpPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                                      "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#c5b0d5", "#c49c94",
                                      "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5", "#393b79", "#637939"};
constexpr size_t kPaletteSize = std::size(kOpPalette);

std::string cellText(int row, int col) { return "(" + std::to_string(row) + "," + std::to_string(col) + ")"; }

std::string header(const ChipModel& m) {
  std::string out = "chip of section " + m.title + " (hypersection " + m.hypersection + ", its bitfile shared by " +
                    std::to_string(m.sections.size()) + " section" + (m.sections.size() == 1 ? "" : "s") + "): ";
  out += std::to_string(m.rows) + "x" + std::to_string(m.cols) + " cells, " + std::to_string(m.tiles) + " tile" +
         (m.tiles == 1 ? "" : "s") + " of " + std::to_string(m.tileRows) + "x" + std::to_string(m.tileCols) + " on " +
         std::to_string(m.chips()) + " chip" + (m.chips() == 1 ? "" : "s") + "\n";
  const auto pmus = std::count_if(m.units.begin(), m.units.end(), [](const ChipUnit& u) { return u.pmu; });
  out += std::to_string(m.units.size()) + " units: " + std::to_string(m.units.size() - static_cast<size_t>(pmus)) +
         " PCUs, " + std::to_string(pmus) + " PMUs\n";
  return out;
}

// The letter of each op (a..z in order of first appearance; '*' past them).
std::map<std::string, char> opLetters(const ChipModel& m) {
  std::map<std::string, char> letters;
  int next = 0;
  for (const std::string& op : m.ops()) letters[op] = next < 26 ? static_cast<char>('a' + next++) : '*';
  return letters;
}

// One char per cell; a space between tiles side by side, a blank line between tile rows.
std::string grid(const ChipModel& m, const std::map<std::string, char>& letters) {
  std::vector<char> cells(static_cast<size_t>(m.rows) * static_cast<size_t>(m.cols), '.');
  for (int r = 0; r < m.rows; ++r)
    for (int c = 0; c < m.cols; ++c)
      if (m.tileAt(r, c) < 0) cells[static_cast<size_t>(r * m.cols + c)] = ' ';
  for (const auto& u : m.units) {
    const char l = letters.at(u.op);
    cells[static_cast<size_t>(u.row * m.cols + u.col)] = u.pmu || l == '*' ? l : static_cast<char>(l - 'a' + 'A');
  }
  std::string out;
  for (int r = 0; r < m.rows; ++r) {
    if (r > 0 && r % m.tileRows == 0) out += "\n";
    std::string line;
    for (int c = 0; c < m.cols; ++c) {
      if (c > 0 && c % m.tileCols == 0) line += ' ';
      line += cells[static_cast<size_t>(r * m.cols + c)];
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  return out;
}

std::string legend(const ChipModel& m, const std::map<std::string, char>& letters) {
  std::string out = "legend: a letter per op, upper case on a PCU, lower case on a PMU; '.' a free cell\n";
  for (const std::string& op : m.ops()) {
    int pcus = 0, pmus = 0;
    for (const auto& u : m.units)
      if (u.op == op) ++(u.pmu ? pmus : pcus);
    const char l = letters.at(op);
    char line[160];
    std::snprintf(line, sizeof line, "  %c/%c  %-20s %4d PCUs %4d PMUs\n", l == '*' ? '*' : l - 'a' + 'A', l,
                  op.c_str(), pcus, pmus);
    out += line;
  }
  return out;
}

std::string linkSummary(const ChipModel& m) {
  if (m.capacity == 0) return "links: not recorded (a PEF from before format 1.4)\n";
  const int over = m.overCapacityLinks();
  std::string out = "links: " + std::to_string(m.links.size()) + " routed, capacity " + std::to_string(m.capacity) +
                    " nets each, most loaded " + std::to_string(m.maxLoad()) + "/" + std::to_string(m.capacity) + ", " +
                    std::to_string(over) + " over capacity" + (over ? ":" : "") + "\n";
  for (const auto& l : m.links)
    if (m.overCapacity(l))
      out += "  " + cellText(l.row, l.col) + " -> " + cellText(l.toRow, l.toCol) + "  " + std::to_string(l.load) + "/" +
             std::to_string(m.capacity) + "\n";
  return out;
}

std::string hex(int r, int g, int b) {
  char s[8];
  std::snprintf(s, sizeof s, "#%02x%02x%02x", std::clamp(r, 0, 255), std::clamp(g, 0, 255), std::clamp(b, 0, 255));
  return s;
}

}  // namespace

std::map<std::string, std::string> opColours(const std::vector<std::string>& ops) {
  std::map<std::string, std::string> out;
  std::vector<bool> taken(kPaletteSize, false);
  for (const std::string& op : ops) {
    if (out.count(op)) continue;
    uint32_t h = 2166136261u;  // FNV-1a: the same op keeps its slot in every section and view
    for (unsigned char ch : op) h = (h ^ ch) * 16777619u;
    size_t slot = h % kPaletteSize;
    for (size_t tries = 0; tries < kPaletteSize && taken[slot]; ++tries) slot = (slot + 1) % kPaletteSize;
    taken[slot] = true;  // past 20 ops, colours repeat
    out[op] = kOpPalette[slot];
  }
  return out;
}

std::string linkColour(int load, int capacity) {
  if (capacity <= 0) return "#888888";
  if (load > capacity) return kOverCapacityColour;
  const double t = static_cast<double>(load) / capacity;  // green (idle) to amber (exactly full)
  return hex(static_cast<int>(60 + t * (245 - 60)), static_cast<int>(170 + t * (160 - 170)),
             static_cast<int>(60 - t * 40));
}

std::string formatChip(const ChipModel& m) {
  const auto letters = opLetters(m);
  return header(m) + "\n" + grid(m, letters) + "\n" + legend(m, letters) + linkSummary(m);
}

}  // namespace dfc::analysis
