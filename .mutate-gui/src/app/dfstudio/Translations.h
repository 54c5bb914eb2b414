#pragma once
// The UI language: Qt's own strings and dfstudio's, looked up by locale
// (dfstudio_de.qm for de_DE, de, ...) and installed on the application.
// English is built in: a locale without a translation installs nothing.
#include <QLocale>
#include <QTranslator>
#include <memory>

namespace dfc::studio {

class Translations {
 public:
  // Loads and installs the translations for `locale`; they stay installed while this object lives.
  explicit Translations(const QLocale& locale = QLocale());
  ~Translations();
  Translations(const Translations&) = delete;
  Translations& operator=(const Translations&) = delete;

  bool appTranslated() const { return m_appInstalled; }  // a dfstudio translation was found for the locale

 private:
  std::unique_ptr<QTranslator> m_qt, m_app;
  bool m_qtInstalled = false, m_appInstalled = false;
};

}  // namespace dfc::studio
