#include "support/ExportFile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <string_view>

#include "support/FileUtil.h"

namespace dfc::views {

bool writeExportFile(const QString& path, const QByteArray& bytes, QString* error) {
  // The engine's writer creates missing folders (for -o); an export names a
  // file in a folder the user picked, so a missing folder is an error here.
  const QDir folder = QFileInfo(path).absoluteDir();
  if (!folder.exists()) {
    if (error) *error = QCoreApplication::translate("ExportFile", "Cannot write %1: folder %2 does not exist").arg(path, folder.path());
    return false;
  }
  const Status st = support::writeFileAtomic(path.toStdString(), std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())));
  if (!st && error) *error = QString::fromStdString(st.error().message());
  return st.ok();
}

}  // namespace dfc::views
