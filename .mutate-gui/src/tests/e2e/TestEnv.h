#pragma once
// Helpers for end-to-end tests: a scratch folder per test, the dataset path
// and running the dfc binary.
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace dfc::test {

inline const char* kFashionMnist = "/usr/share/datasets/fashion-mnist";

class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag) {
    std::random_device rd;
    m_path = std::filesystem::temp_directory_path() / ("dfc-" + tag + "-" + std::to_string(rd()));
    std::filesystem::create_directories(m_path);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  std::string operator/(const std::string& name) const { return (m_path / name).string(); }
  const std::filesystem::path& path() const { return m_path; }
  // Writes `text` to the file `name` in the folder; returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    const std::string file = *this / name;
    std::ofstream(file) << text;
    return file;
  }

 private:
  std::filesystem::path m_path;
};

struct CommandResult {
  int status = -1;     // exit status; -1 if dfc did not run or exit normally
  std::string output;  // stdout and stderr together
};

inline CommandResult runDfc(const std::string& args) {
  const std::string cmd = std::string(DFC_BINARY_DIR) + "/app/dfc/dfc " + args + " 2>&1";
  CommandResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) r.output.append(buf, n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

}  // namespace dfc::test
