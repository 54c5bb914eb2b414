#pragma once
// Node and section roles as data: one row per role in ir/Roles.def. Code asks
// a role's properties (roleInfo) instead of comparing it with a value, and
// counts by role in a PerRole array, so a new role is a new row.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace dfc::ir {

enum class NodeRole : uint8_t {
#define DFC_ROLE(Enum, name, inEvaluation, mergeable, scaleGroup, color) Enum,
#include "ir/Roles.def"
};

constexpr size_t kNumRoles = 0
#define DFC_ROLE(Enum, name, inEvaluation, mergeable, scaleGroup, color) +1
#include "ir/Roles.def"
    ;

// The --resources-scaling-factors value that limits a role's sections.
enum class RoleScale : uint8_t { Forward, Backward, Optimizer };

struct RoleInfo {
  NodeRole role;
  std::string_view name;
  bool inEvaluation;   // runs in forward-only evaluation
  bool mergeable;      // CSE may merge identical nodes
  RoleScale scale;
  uint32_t displayColor;  // 0xRRGGBB
};

// Every role, in Roles.def (display) order; roles()[roleIndex(r)].role == r.
std::span<const RoleInfo> roles();
constexpr size_t roleIndex(NodeRole role) { return static_cast<size_t>(role); }
const RoleInfo& roleInfo(NodeRole role);
std::string_view roleName(NodeRole role);  // "forward", "backward", "reduce", "optimizer"
std::optional<NodeRole> parseRole(std::string_view name);
// "forward, backward, reduce or optimizer": for error messages.
std::string roleNameList();

// A count (or any value) per role, indexed by roleIndex.
template <typename T>
using PerRole = std::array<T, kNumRoles>;

}  // namespace dfc::ir
