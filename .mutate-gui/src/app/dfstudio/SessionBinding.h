#pragma once
// Wires the Compile screen to the Session: the screen's requests start,
// cancel and configure work; the Session's reports fill its progress bar,
// status and log.
namespace dfc::views {
class CompilePanel;
}

namespace dfc::studio {

class Session;

void bindCompilePanel(Session* session, views::CompilePanel* panel);

}  // namespace dfc::studio
