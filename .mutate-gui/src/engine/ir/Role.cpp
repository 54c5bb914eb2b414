#include "ir/Role.h"

namespace dfc::ir {
namespace {

constexpr RoleInfo kRoles[] = {
#define DFC_ROLE(Enum, name, inEvaluation, mergeable, scaleGroup, color) \
  {NodeRole::Enum, name, inEvaluation, mergeable, RoleScale::scaleGroup, color},
#include "ir/Roles.def"
};
static_assert(std::size(kRoles) == kNumRoles);

// The rows are in enum order, so a role's row is its index.
constexpr bool rowsInEnumOrder() {
  for (size_t i = 0; i < kNumRoles; ++i)
    if (roleIndex(kRoles[i].role) != i) return false;
  return true;
}
static_assert(rowsInEnumOrder());

}  // namespace

std::span<const RoleInfo> roles() { return kRoles; }

const RoleInfo& roleInfo(NodeRole role) { return kRoles[roleIndex(role)]; }

std::string_view roleName(NodeRole role) { return roleIndex(role) < kNumRoles ? roleInfo(role).name : "?"; }

std::optional<NodeRole> parseRole(std::string_view name) {
  for (const RoleInfo& r : kRoles)
    if (r.name == name) return r.role;
  return std::nullopt;
}

std::string roleNameList() {
  std::string out;
  for (size_t i = 0; i < kNumRoles; ++i) {
    if (i > 0) out += i + 1 == kNumRoles ? " or " : ", ";
    out += kRoles[i].name;
  }
  return out;
}

}  // namespace dfc::ir
