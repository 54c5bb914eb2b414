#include "Translations.h"

#include <QCoreApplication>
#include <QLibraryInfo>

namespace dfc::studio {

Translations::Translations(const QLocale& locale)
    : m_qt(std::make_unique<QTranslator>()), m_app(std::make_unique<QTranslator>()) {
  if (m_qt->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"), QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
    m_qtInstalled = QCoreApplication::installTranslator(m_qt.get());
  if (m_app->load(locale, QStringLiteral("dfstudio"), QStringLiteral("_"), QStringLiteral(":/i18n")))
    m_appInstalled = QCoreApplication::installTranslator(m_app.get());
}

Translations::~Translations() {
  if (m_appInstalled) QCoreApplication::removeTranslator(m_app.get());
  if (m_qtInstalled) QCoreApplication::removeTranslator(m_qt.get());
}

}  // namespace dfc::studio
