// Opening dfstudio's Chip screen on a PEF (issue 35: < 1 s on the Llama-7B
// shape): the PEF read for viewing, then the panel fed the PEF (the model of
// the section with the most units) and painted, then the step's heat map
// built and painted. Offscreen; prints milliseconds per stage.
//   bench_chip_view PEF
#include <QApplication>
#include <QComboBox>
#include <QImage>
#include <QPainter>
#include <chrono>
#include <cstdio>

#include "chip/ChipCanvas.h"
#include "chip/ChipPanel.h"
#include "pef/Pef.h"

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

void paintOnce(const dfc::views::ChipCanvas& canvas) {
  QImage image(QSize(1600, 1000), QImage::Format_ARGB32);
  QPainter painter(&image);
  canvas.paint(painter, image.size());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: bench_chip_view PEF\n");
    return 2;
  }
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  auto start = Clock::now();
  auto pef = dfc::pef::readPef(argv[1], dfc::pef::PefUse::View);
  if (!pef) {
    std::fprintf(stderr, "%s\n", pef.error().message().c_str());
    return 2;
  }
  const double readMs = msSince(start);
  auto shared = std::make_shared<const dfc::pef::Pef>(std::move(*pef));
  dfc::views::ChipPanel panel;
  panel.resize(1600, 1000);
  start = Clock::now();
  panel.setPef(shared);
  paintOnce(*panel.canvas());
  const double openMs = msSince(start);
  const dfc::analysis::ChipModel m = panel.canvas()->model();  // a copy: the heat map replaces it
  start = Clock::now();
  panel.showSection(QStringLiteral("step"));
  paintOnce(*panel.canvas());
  const double heatMs = msSince(start);
  std::printf("PEF %s: %zu sections, %zu bitfiles; opened on %s: %zu units, %zu links, %dx%d cells\n", argv[1],
              shared->plan.sections.size(), shared->bitfiles.size(), m.title.c_str(), m.units.size(), m.links.size(),
              m.rows, m.cols);
  std::printf("read PEF %.1f ms; chip view open (model + paint) %.1f ms; step heat map (model + paint) %.1f ms\n",
              readMs, openMs, heatMs);
  return 0;
}
