#include "partition/Plan.h"

namespace dfc::partition {

std::string_view optLevelName(OptLevel level) {
  switch (level) {
    case OptLevel::O0: return "o0";
    case OptLevel::O1: return "o1";
    case OptLevel::O3: return "o3";
  }
  return "?";
}

}  // namespace dfc::partition
