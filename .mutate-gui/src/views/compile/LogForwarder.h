#pragma once
// Forwards spdlog lines to Qt: a sink on the default logger emits
// lineLogged() from whatever thread logged; connect with a queued connection.
// The engine stays Qt-free; this sink lives on the views side.
#include <QObject>
#include <QString>

namespace dfc::views {

class LogForwarder : public QObject {
  Q_OBJECT

 public:
  // The process-wide forwarder; the first call adds its sink to spdlog's default logger.
  static LogForwarder* instance();
  // Hands a line to the receivers as if spdlog had logged it (Runner's LogFn lines).
  void forward(const QString& level, const QString& text) { emit lineLogged(level, text); }

 signals:
  void lineLogged(const QString& level, const QString& text);

 private:
  LogForwarder() = default;
};

}  // namespace dfc::views
