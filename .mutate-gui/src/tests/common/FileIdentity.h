#pragma once
// What a path is (device, inode, type), to check that a refused output left it as it was.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <string>

namespace dfc::test {

struct FileIdentity {
  dev_t dev;
  ino_t ino;
  mode_t mode;
  bool operator==(const FileIdentity&) const = default;
};

inline FileIdentity fileIdentity(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return {st.st_dev, st.st_ino, st.st_mode};
}

}  // namespace dfc::test
