#pragma once
// Numbers with units chosen by their magnitude, one place for every view:
// times in ns / us / ms / s, floating-point work in FLOP / kFLOP / MFLOP /
// GFLOP / TFLOP, bytes in B / KiB / MiB / GiB. Decimal separators follow the
// locale ("1,50 ms" in German).
#include <QString>

namespace dfc::views {

// "850 ns", "12.5 us", "3.20 ms", "1.500 s"
QString formatDuration(double us);
// "512 FLOP", "3.4 MFLOP", "262 GFLOP", "7.53 TFLOP"
QString formatFlop(double flop);
// "512 B", "3.4 MiB"
QString formatBytes(double bytes);

}  // namespace dfc::views
