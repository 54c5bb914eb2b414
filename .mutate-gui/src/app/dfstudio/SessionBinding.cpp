#include "SessionBinding.h"

#include "Session.h"
#include "compile/CompilePanel.h"

namespace dfc::studio {

void bindCompilePanel(Session* session, views::CompilePanel* panel) {
  using views::CompilePanel;
  QObject::connect(panel, &CompilePanel::compileRequested, session, &Session::compile);
  QObject::connect(panel, &CompilePanel::runRequested, session, &Session::run);
  QObject::connect(panel, &CompilePanel::cancelRequested, session, &Session::cancel);
  QObject::connect(session, &Session::busyChanged, panel, &CompilePanel::setBusy);
  QObject::connect(session, &Session::started, panel, &CompilePanel::showStarted);
  QObject::connect(session, &Session::compileProgress, panel, &CompilePanel::showProgress);
  QObject::connect(session, &Session::logLine, panel, &CompilePanel::appendLog);
  QObject::connect(session, &Session::compileFinished, panel, &CompilePanel::showCompileFinished);
  QObject::connect(session, &Session::runFinished, panel, &CompilePanel::showRunFinished);
  panel->setBusy(session->isBusy());
}

}  // namespace dfc::studio
