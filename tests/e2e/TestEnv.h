#pragma once
// Helpers for end-to-end tests: a scratch folder per test and the dataset path.
#include <filesystem>
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

 private:
  std::filesystem::path m_path;
};

}  // namespace dfc::test
