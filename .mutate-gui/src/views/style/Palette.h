#pragma once
// The categorical colours every view draws hypersections, hyperfunctions and
// sections with, and the colour distance they were chosen by. The 24 fills
// were picked greedily for distance (CIEDE2000 >= 15 between any two, >= 20
// from the white background, >= 14 from kOtherColor), all light enough
// (L* >= 50) for dark label text. What does not fit gets kOtherColor.
#include <QColor>
#include <array>
#include <cstdint>

namespace dfc::views {

inline constexpr std::array<uint32_t, 24> kCategoricalColors = {
    0xebf2aa, 0xbc3df2, 0xd66636, 0x3dbcf2, 0x26996b, 0xf2aac7, 0x998226, 0x3df2e0,
    0x3676d6, 0x996b79, 0xaaaaf2, 0x36d636, 0xd6b096, 0x268e99, 0xf2bc3d, 0xf23d61,
    0xaab82e, 0xd63696, 0xe785f2, 0x997d6b, 0x81b8b2, 0x8b996b, 0x96d6a3, 0xf29085,
};
inline constexpr uint32_t kOtherColor = 0xc8c8c8;  // "other": past the palette
inline constexpr uint32_t kNoneColor = 0xf0f0f0;   // not in any section / scope

int categoricalCount();
// Palette entry `index`; kOtherColor past the end or for a negative index.
QColor categoricalColor(int index);
// Black or white, whichever reads better on `fill`.
QColor textColorOn(const QColor& fill);

// CIE L*a*b* (D65) of an sRGB colour, and the CIEDE2000 colour difference.
struct Lab {
  double l = 0, a = 0, b = 0;
};
Lab toLab(const QColor& color);
double ciede2000(const Lab& x, const Lab& y);
double colorDistance(const QColor& x, const QColor& y);

}  // namespace dfc::views
