#pragma once
// dfstudio's exports (DOT, SVG, PNG, CSV) go through the engine's one writer:
// a temp file renamed into place, and only over a regular file, so an export
// never leaves half a file and never replaces a device, FIFO or directory.
#include <QByteArray>
#include <QString>

namespace dfc::views {

// Writes `bytes` to `path`; false with a message in `error` (may be null) when refused or failed.
bool writeExportFile(const QString& path, const QByteArray& bytes, QString* error);

}  // namespace dfc::views
