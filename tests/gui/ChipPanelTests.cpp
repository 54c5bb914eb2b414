// The chip view (views/chip): a hand-built chip of one 4x4 tile, three units
// and three links against a capacity of 2: one at 1 net, one exactly full (2),
// one over (3). Rendered offscreen into a QImage, the over-capacity link's
// pixel is red and the others are not; hover names a unit's and a link's
// figures; the section selector and export work on a PEF.
#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <catch2/catch.hpp>

#include "GuiTestSupport.h"
#include "chip/ChipCanvas.h"
#include "chip/ChipPanel.h"

using namespace dfc;

namespace {

analysis::ChipModel handChip() {
  analysis::ChipModel m;
  m.title = "s0";
  m.hypersection = "hs0";
  m.rows = m.cols = m.tileRows = m.tileCols = 4;
  m.tiles = m.tilesPerChip = 1;
  m.capacity = 2;
  analysis::ChipUnit mm;
  mm.op = "matmul", mm.nodeName = "fc1", mm.role = "gemm", mm.stages = 5, mm.slice = 1;
  analysis::ChipUnit buf = mm;
  buf.row = 0, buf.col = 1, buf.pmu = true, buf.role = "weights", buf.stages = 0;
  analysis::ChipUnit act = mm;
  act.row = 2, act.col = 2, act.op = "relu", act.nodeName = "act1", act.role = "stage";
  m.units = {mm, buf, act};
  m.links = {{0, 0, 1, 0, 1, 1},   // (0,0) -> (0,1): 1 of 2
             {0, 1, 2, 1, 1, 3},   // (0,1) -> (1,1): 3 of 2, over
             {1, 1, 1, 1, 2, 2}};  // (1,1) -> (1,2): 2 of 2, exactly full
  return m;
}

// Two hypersections: hs0 (section s0, 1 unit) and hs1 (s1 and s2, 2 units); the step calls s0, s1, s2.
std::shared_ptr<const pef::Pef> twoBitfiles() {
  auto p = std::make_shared<pef::Pef>();
  for (int i = 0; i < 3; ++i) {
    partition::Section s;
    s.id = i;
    s.name = "s" + std::to_string(i);
    s.hypersection = i == 0 ? 0 : 1;
    p->plan.sections.push_back(s);
  }
  p->plan.hypersections = {{0, "hs0", {0}}, {1, "hs1", {1, 2}}};
  p->plan.schedule = {0, 1, 2};
  for (int h = 0; h < 2; ++h) {
    pef::Bitfile b;
    b.hypersection = h;
    b.name = "hs" + std::to_string(h);
    b.gridRows = b.gridCols = b.tileRows = b.tileCols = 2;
    b.tiles = b.tilesPerChip = 1;
    b.linkCapacity = 8;
    b.units.resize(static_cast<size_t>(h + 1));
    if (h == 1) b.units.back().col = 1;  // hs0: (0,0); hs1: (0,0) and (0,1)
    p->bitfiles.push_back(b);
  }
  return p;
}

QImage render(const views::ChipCanvas& canvas, QSize size) {
  QImage image(size, QImage::Format_ARGB32);
  QPainter painter(&image);
  canvas.paint(painter, size);
  return image;
}

QColor at(const QImage& image, QPointF p) { return image.pixelColor(p.toPoint()); }

}  // namespace

TEST_CASE("a link over capacity is drawn red, one within it is not", "[gui][chip]") {
  guitest::ensureApp();
  views::ChipCanvas canvas;
  canvas.setModel(handChip());
  const QSize size(400, 400);
  const QImage image = render(canvas, size);
  const auto& links = canvas.model().links;
  const QColor red(QString::fromLatin1(analysis::kOverCapacityColour));
  CHECK(at(image, canvas.linkLine(links[1], size).center()) == red);
  CHECK(at(image, canvas.linkLine(links[0], size).center()) != red);
  CHECK(at(image, canvas.linkLine(links[2], size).center()) != red);  // exactly full is not over
  CHECK(at(image, canvas.linkLine(links[2], size).center()) ==
        QColor(QString::fromStdString(analysis::linkColour(2, 2))));
  // A unit's cell away from the links takes its op's colour.
  CHECK(at(image, canvas.cellRect(2, 2, size).center() + QPointF(0, canvas.cellRect(2, 2, size).height() * 0.35)) ==
        QColor(QString::fromStdString(analysis::opColours(canvas.model().ops()).at("relu"))));
}

TEST_CASE("hovering a unit or a link tells its figures", "[gui][chip]") {
  guitest::ensureApp();
  views::ChipCanvas canvas;
  canvas.resize(400, 400);
  canvas.setModel(handChip());
  const auto& links = canvas.model().links;
  const QString linkTip = canvas.toolTipAt(canvas.linkLine(links[1], canvas.size()).center());
  CHECK(linkTip.contains(QStringLiteral("3 of 2 nets")));
  CHECK(linkTip.contains(QStringLiteral("over capacity")));
  const QRectF cell = canvas.cellRect(2, 2, canvas.size());
  const QString unitTip = canvas.toolTipAt(cell.center() + QPointF(0, cell.height() * 0.35));
  CHECK(unitTip.contains(QStringLiteral("act1 (relu)")));
  CHECK(unitTip.contains(QStringLiteral("PCU stage, stages 5, slice 1")));
  CHECK(canvas.toolTipAt(canvas.cellRect(3, 0, canvas.size()).center()).isEmpty());  // a free cell
}

TEST_CASE("the chip panel exports its chip as SVG and PNG", "[gui][chip]") {
  guitest::ensureApp();
  views::ChipPanel panel;
  panel.setModel(handChip());
  QTemporaryDir dir;
  QString error;
  REQUIRE(panel.exportSvg(dir.filePath(QStringLiteral("chip.svg")), &error));
  REQUIRE(panel.exportPng(dir.filePath(QStringLiteral("chip.png")), &error));
  QImage png(dir.filePath(QStringLiteral("chip.png")));
  CHECK_FALSE(png.isNull());
  QFile svg(dir.filePath(QStringLiteral("chip.svg")));
  REQUIRE(svg.open(QIODevice::ReadOnly));
  CHECK(svg.readAll().toStdString() == analysis::chipSvg(handChip()));
}

TEST_CASE("the section selector switches between the step's sections and its heat map", "[gui][chip]") {
  guitest::ensureApp();
  views::ChipPanel panel;
  panel.setPef(twoBitfiles());
  CHECK(panel.sectionBox()->count() == 4);       // the heat map, then s0, s1, s2
  CHECK(panel.canvas()->model().title == "s1");  // the section with the most units opens first
  REQUIRE(panel.showSection(QStringLiteral("s0")));
  CHECK(panel.canvas()->model().title == "s0");
  CHECK(panel.canvas()->model().units.size() == 1);
  panel.sectionBox()->setCurrentIndex(3);  // the user picks s2: hs1's bitfile
  CHECK(panel.canvas()->model().title == "s2");
  CHECK(panel.canvas()->model().hypersection == "hs1");
  REQUIRE(panel.showSection(QStringLiteral("step")));
  CHECK(panel.canvas()->model().heat == std::vector<int>{3, 2, 0, 0});  // (0,0) busy in all 3 calls, (0,1) in s1 and s2
  CHECK_FALSE(panel.showSection(QStringLiteral("s9")));
}

TEST_CASE("the SVG that dfc inspect --chip writes draws the over-capacity link red too", "[gui][chip]") {
  guitest::ensureApp();
  QSvgRenderer svg(QByteArray::fromStdString(analysis::chipSvg(handChip())));
  REQUIRE(svg.isValid());
  QImage image(svg.defaultSize(), QImage::Format_ARGB32);
  image.fill(Qt::white);
  QPainter painter(&image);
  svg.render(&painter);
  painter.end();
  // ChipSvg.cpp: 14 px cells from (20, 20); a southward link runs 2.5 px right of the cells' centres.
  const QColor red(QString::fromLatin1(analysis::kOverCapacityColour));
  CHECK(image.pixelColor(20 + 14 + 7 + 2, 20 + 14) == red);       // (0,1) -> (1,1): 3 of 2
  CHECK(image.pixelColor(20 + 14, 20 + 7 + 2) != red);            // (0,0) -> (0,1): 1 of 2
  CHECK(image.pixelColor(20 + 14 + 14, 20 + 14 + 7 + 2) != red);  // (1,1) -> (1,2): exactly full
}
