#include "support/SizeBudget.h"

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <limits>

namespace dfc::support {
namespace {

constexpr uint64_t kMaxSize = uint64_t{1} << 62;
std::atomic<uint64_t> g_budget{0};

// cgroup v2 (memory.max) or v1 (memory.limit_in_bytes); "max" or absent: none.
std::optional<uint64_t> cgroupLimit() {
  for (const char* file : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(file);
    std::string text;
    if (!(in >> text)) continue;
    uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec == std::errc() && ptr == text.data() + text.size() && v > 0 && v < kMaxSize) return v;
  }
  return std::nullopt;
}

}  // namespace

uint64_t machineMemoryBytes() {
  static const uint64_t bytes = [] {
    long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
    uint64_t physical = pages > 0 && pageSize > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize)
                                                  : uint64_t{8} << 30;
    if (auto limit = cgroupLimit(); limit && *limit < physical) physical = *limit;
    // A process under `ulimit -v` cannot map more than that, whatever the machine has.
    struct rlimit rl {};
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < physical) physical = rl.rlim_cur;
    return physical;
  }();
  return bytes;
}

uint64_t memoryBudget() {
  uint64_t b = g_budget.load(std::memory_order_relaxed);
  return b ? b : machineMemoryBytes();
}

void setMemoryBudget(uint64_t bytes) { g_budget.store(bytes, std::memory_order_relaxed); }

Expected<uint64_t> parseByteSize(const std::string& flag, const std::string& text) {
  auto bad = [&] {
    return makeError(flag + " '" + text + "': expected a size such as 512M, 16G or 1.5T (bytes without a unit)");
  };
  double value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || !(value > 0)) return bad();
  std::string unit(ptr, end);
  if (unit.size() == 3 && unit.substr(1) == "iB") unit = unit.substr(0, 1);
  if (unit.size() == 2 && unit[1] == 'B') unit = unit.substr(0, 1);
  int shift = 0;
  if (unit.empty() || unit == "B") shift = 0;
  else if (unit == "K" || unit == "k") shift = 10;
  else if (unit == "M") shift = 20;
  else if (unit == "G") shift = 30;
  else if (unit == "T") shift = 40;
  else return bad();
  double bytes = value * static_cast<double>(uint64_t{1} << shift);
  if (bytes < 1 || bytes >= static_cast<double>(kMaxSize)) return bad();
  return static_cast<uint64_t>(bytes);
}

std::string formatBytes(uint64_t bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double v = static_cast<double>(bytes);
  int unit = 0;
  while (v >= 1024 && unit < 6) {
    v /= 1024;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[unit]);
  return buf;
}

std::optional<uint64_t> checkedMul(uint64_t a, uint64_t b) {
  if (a != 0 && b > kMaxSize / a) return std::nullopt;
  return a * b;
}

std::optional<uint64_t> checkedAdd(uint64_t a, uint64_t b) {
  if (a > kMaxSize || b > kMaxSize - a) return std::nullopt;
  return a + b;
}

Status checkBudget(const std::string& what, uint64_t bytes) {
  uint64_t budget = memoryBudget();
  if (bytes <= budget) return {};
  return makeError(what + " needs " + formatBytes(bytes) + ", more than the memory budget of " + formatBytes(budget) +
                   " (--max-memory to change it)");
}

}  // namespace dfc::support
