#include "profile/TraceFile.h"

#include <zlib.h>

#include <algorithm>

#include "support/FileUtil.h"
#include "support/SizeBudget.h"

namespace dfc::profile {
namespace {

Expected<std::string> gzipped(std::string_view data, const std::string& path) {
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return makeError(path + ": cannot start gzip compression");
  std::string out(deflateBound(&z, static_cast<uLong>(data.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) return makeError(path + ": gzip compression failed");
  return out;
}

}  // namespace

bool isGzipPath(const std::string& path) { return path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0; }

Expected<PaddedBuffer> loadTraceFile(const std::string& path) {
  return TraceText::load(path);  // a regular file within the budget; gzip inflated
}

Status writeTraceFile(const std::string& path, std::string_view json) {
  if (!isGzipPath(path)) return support::writeFileAtomic(path, json);
  if (json.size() > 0xffffffffu) return makeError(path + ": trace too large to gzip in one piece");
  auto packed = gzipped(json, path);
  if (!packed) return packed.error();
  return support::writeFileAtomic(path, *packed);
}

}  // namespace dfc::profile
