#include "support/SafePath.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "support/SizeBudget.h"

namespace dfc::support {
namespace fs = std::filesystem;

namespace {

std::string label(const std::string& flag, const std::string& path) { return flag.empty() ? path : flag + " " + path; }

// True when `inner` is `outer` or lies below it (both canonical).
bool isWithin(const fs::path& inner, const fs::path& outer) {
  auto o = outer.begin(), i = inner.begin();
  for (; o != outer.end(); ++o, ++i)
    if (i == inner.end() || *i != *o) return false;
  return true;
}

}  // namespace

std::string fileKindName(unsigned mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symlink";
  return "not a regular file";
}

Status checkRegularFile(const std::string& path, uint64_t maxBytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return makeError(path + ": cannot open: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return makeError(path + ": is " + fileKindName(st.st_mode) + ", not a regular file");
  uint64_t limit = maxBytes ? maxBytes : memoryBudget();
  if (static_cast<uint64_t>(st.st_size) > limit)
    return makeError(path + ": " + formatBytes(static_cast<uint64_t>(st.st_size)) + " is more than the " +
                     formatBytes(limit) + " this reader accepts");
  return {};
}

Expected<std::string> readRegularFile(const std::string& path, uint64_t maxBytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return makeError(path + ": cannot open: " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return makeError(path + ": cannot stat: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return makeError(path + ": is " + fileKindName(st.st_mode) + ", not a regular file");
  const uint64_t size = static_cast<uint64_t>(st.st_size), limit = maxBytes ? maxBytes : memoryBudget();
  if (size > limit)
    return makeError(path + ": " + formatBytes(size) + " is more than the " + formatBytes(limit) +
                     " this reader accepts");
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::string out(static_cast<size_t>(size) + 1, '\0');  // one spare byte tells a growing file
  size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::read(fd, out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return makeError(path + ": read failed: " + std::strerror(errno));
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  if (got > size) return makeError(path + ": the file grew while it was read");
  out.resize(got);
  return out;
}

Expected<std::string> resolveInside(const std::string& folder, const std::string& relative, const std::string& what) {
  fs::path rel(relative);
  if (relative.empty()) return makeError(what + ": empty path");
  if (rel.is_absolute()) return makeError(what + " '" + relative + "' is an absolute path; it must be relative to " + folder);
  for (const auto& part : rel)
    if (part == "..") return makeError(what + " '" + relative + "' climbs out of " + folder + " with '..'");
  std::error_code ec;
  fs::path base = fs::canonical(folder.empty() ? "." : folder, ec);
  if (ec) return makeError(what + ": folder " + folder + ": " + ec.message());
  fs::path target = fs::canonical(base / rel, ec);
  if (ec) return makeError(what + " '" + relative + "': " + (base / rel).string() + ": " + ec.message());
  if (!isWithin(target, base))
    return makeError(what + " '" + relative + "' resolves to " + target.string() + ", outside the model's folder " +
                     base.string());
  return target.string();
}

Expected<std::string> checkOutputFile(const std::string& path, const std::string& flag) {
  struct stat st {};
  if (path.empty()) return makeError(label(flag, "''") + ": empty path");
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return path;
    return makeError(label(flag, path) + ": " + std::strerror(errno));
  }
  if (S_ISREG(st.st_mode)) return path;
  if (!S_ISLNK(st.st_mode))
    return makeError(label(flag, path) + ": is " + fileKindName(st.st_mode) + "; refusing to replace it (give a file path)");
  // A symlink: followed only to an existing regular file in the link's own folder.
  std::error_code ec;
  fs::path link(path);
  fs::path folder = fs::canonical(link.has_parent_path() ? link.parent_path() : fs::path("."), ec);
  fs::path target = ec ? fs::path() : fs::canonical(link, ec);
  if (ec) return makeError(label(flag, path) + ": is a symlink to a missing file; refusing to write through it");
  if (target.parent_path() != folder)
    return makeError(label(flag, path) + ": is a symlink out of its folder; refusing to write through it");
  if (::stat(target.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return makeError(label(flag, path) + ": links to " + fileKindName(st.st_mode) + "; refusing to replace it");
  return target.string();
}

}  // namespace dfc::support
