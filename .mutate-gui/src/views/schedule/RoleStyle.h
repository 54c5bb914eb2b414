#pragma once
// How dfstudio shows section roles, from the engine's role table
// (engine/ir/Roles.def): colour, translated label, counts by role.
#include <QColor>
#include <QString>

#include "ir/Role.h"

namespace dfc::views {

QColor roleColor(ir::NodeRole role);
// By role name (ScheduleSection::type); an unknown name gets the default role's colour.
QColor roleColor(const QString& name);
QString roleLabel(ir::NodeRole role);  // the name, translated
// "18 forward, 22 backward, 10 optimizer": every role in table order, translated.
QString roleCounts(const ir::PerRole<int>& counts);

}  // namespace dfc::views
