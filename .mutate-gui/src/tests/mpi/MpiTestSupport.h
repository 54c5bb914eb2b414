#pragma once
// Helpers for the tests that start dfc under mpirun: the command line, a
// blocking run that captures the output, and a background run that can be
// watched and have one of its ranks killed.
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../e2e/TestEnv.h"

namespace dfc::test {

inline std::string dfcPath() { return std::string(DFC_BINARY_DIR) + "/app/dfc/dfc"; }

// mpirun as CI runs it: as root, more ranks than cores allowed, 1 thread each.
inline std::string mpirunPrefix(int ranks, const std::string& extra = {}) {
  return std::string(DFC_MPIEXEC) + " --oversubscribe --allow-run-as-root -np " + std::to_string(ranks) + " " + extra +
         " ";
}

// A whole command (with a timeout so a hang fails the test instead of the CI job).
inline CommandResult runShell(const std::string& command, int timeoutSeconds = 240) {
  const std::string cmd = "timeout -k 5 " + std::to_string(timeoutSeconds) + " " + command + " 2>&1";
  CommandResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) r.output.append(buf, n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

// "Epoch [1/1], Step [3/20], Loss: 2.2891" lines, in order.
inline std::vector<double> lossesIn(const std::string& output) {
  static const std::regex kLoss(R"(Step \[\d+/\d+\], Loss: ([-0-9.eE+]+))");
  std::vector<double> out;
  for (auto it = std::sregex_iterator(output.begin(), output.end(), kLoss); it != std::sregex_iterator(); ++it)
    out.push_back(std::stod((*it)[1].str()));
  return out;
}

inline std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The pids of processes whose environment holds `entry` ("NAME=value").
inline std::vector<pid_t> processesWithEnv(const std::string& entry) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& dir : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = dir.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string env = readText(dir.path().string() + "/environ");
    for (size_t at = 0; at < env.size();) {
      size_t end = env.find('\0', at);
      if (end == std::string::npos) end = env.size();
      if (env.compare(at, end - at, entry) == 0) out.push_back(static_cast<pid_t>(std::stol(name)));
      at = end + 1;
    }
  }
  return out;
}

// Polls `done` every 100 ms until it holds or `limit` passes.
template <typename Pred>
bool waitFor(Pred done, std::chrono::seconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return done();
}

}  // namespace dfc::test
