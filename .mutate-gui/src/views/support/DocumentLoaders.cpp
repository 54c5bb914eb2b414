#include "support/DocumentLoaders.h"

#include <QDir>
#include <QFileInfo>

namespace dfc::views {

QString findTraceForPef(const DocumentLoaders& loaders, const QString& pefPath, const QString& dbPath) {
  const QFileInfo pef(pefPath);
  if (loaders.latestTraceForPef) {
    const QString fromStore =
        QString::fromStdString(loaders.latestTraceForPef(pef.absoluteFilePath().toStdString(), dbPath.toStdString()));
    if (!fromStore.isEmpty() && QFileInfo::exists(fromStore)) return fromStore;
  }
  const QString beside =
      pef.absoluteDir().filePath(pef.completeBaseName() + QStringLiteral("_chrome_tracing_report.json"));
  return QFileInfo::exists(beside) ? beside : QString();
}

}  // namespace dfc::views
