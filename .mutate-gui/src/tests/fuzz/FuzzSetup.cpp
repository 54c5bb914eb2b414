#include <spdlog/spdlog.h>

#include "FuzzTargets.h"
#include "support/SizeBudget.h"

namespace dfc::fuzz {

void setUp() {
  static bool done = false;
  if (done) return;
  done = true;
  support::setMemoryBudget(uint64_t{256} << 20);
  spdlog::set_level(spdlog::level::off);
}

}  // namespace dfc::fuzz
