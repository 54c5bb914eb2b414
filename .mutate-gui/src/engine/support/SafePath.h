#pragma once
// Path policy for files users hand us and files we write for them:
// readers take regular files only (a FIFO, /dev/zero or a directory is
// refused before a byte is read) of a bounded size; data a model names
// (ONNX external data) must lie inside the model's folder after symlinks are
// resolved; writers replace regular files only.
#include <cstdint>
#include <string>

#include "support/Error.h"

namespace dfc::support {

// "a directory", "a FIFO", "a character device", ... for error messages.
std::string fileKindName(unsigned mode);

// `path` exists, is a regular file once symlinks are followed, and holds at
// most `maxBytes` (0: the memory budget). Errors name the file.
Status checkRegularFile(const std::string& path, uint64_t maxBytes = 0);

// Reads a regular file of at most `maxBytes` (0: the memory budget). A FIFO
// is refused without blocking; a file that grows while read is cut off at
// the size it had, plus one byte, and refused.
Expected<std::string> readRegularFile(const std::string& path, uint64_t maxBytes = 0);

// `relative` (a path a file names, e.g. ONNX external data) resolved against
// `folder`: refused when absolute, when it climbs out with "..", or when it
// resolves (symlinks followed) outside the folder. `what` leads the error.
Expected<std::string> resolveInside(const std::string& folder, const std::string& relative, const std::string& what);

// An output target: absent, or a regular file (a symlink is followed only to a
// regular file in the same folder). Returns the path to write, or an error
// naming `flag` ("--trace") and what is there.
Expected<std::string> checkOutputFile(const std::string& path, const std::string& flag = "");

}  // namespace dfc::support
