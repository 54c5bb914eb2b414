#include "schedule/RoleStyle.h"

#include <QCoreApplication>

namespace dfc::views {
namespace {

constexpr const char* kContext = "dfc::views::Roles";
// For lupdate: the role names Roles.def has today. A row added there without
// one here still shows, untranslated.
[[maybe_unused]] constexpr const char* kRoleNamesToTranslate[] = {
    QT_TRANSLATE_NOOP("dfc::views::Roles", "forward"),
    QT_TRANSLATE_NOOP("dfc::views::Roles", "backward"),
    QT_TRANSLATE_NOOP("dfc::views::Roles", "reduce"),
    QT_TRANSLATE_NOOP("dfc::views::Roles", "optimizer"),
    QT_TRANSLATE_NOOP("dfc::views::Roles", "accumulate"),
};

}  // namespace

QColor roleColor(ir::NodeRole role) { return QColor::fromRgb(ir::roleInfo(role).displayColor); }

QColor roleColor(const QString& name) {
  auto role = ir::parseRole(name.toStdString());
  return roleColor(role.value_or(ir::NodeRole{}));
}

QString roleLabel(ir::NodeRole role) {
  const std::string name(ir::roleName(role));
  return QCoreApplication::translate(kContext, name.c_str());
}

QString roleCounts(const ir::PerRole<int>& counts) {
  QStringList parts;
  for (const ir::RoleInfo& role : ir::roles())
    if (counts[ir::roleIndex(role.role)] != 0)  // only the roles the compile has
      parts << QStringLiteral("%1 %2").arg(counts[ir::roleIndex(role.role)]).arg(roleLabel(role.role));
  return parts.join(QStringLiteral(", "));
}

}  // namespace dfc::views
