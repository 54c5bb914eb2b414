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

bool isGzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b;
}

Expected<std::string> gunzipWithin(std::string_view bytes, const std::string& name) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) return makeError(name + ": cannot start gzip decompression");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(std::min<size_t>(bytes.size(), 0xffffffffu));
  std::string out;
  char chunk[1 << 16];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(chunk);
    z.avail_out = sizeof chunk;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) break;
    const size_t got = sizeof chunk - z.avail_out;
    if (Status st = support::checkBudget(name + " (decompressed)", out.size() + got); !st) {
      inflateEnd(&z);
      return st.error();
    }
    out.append(chunk, got);
    if (rc == Z_OK && got == 0 && z.avail_in == 0) break;  // input ended before the stream did
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END) return makeError(name + ": corrupt or truncated gzip data");
  return out;
}

Expected<simdjson::padded_string> loadTraceFile(const std::string& path) {
  auto bytes = support::readFile(path);  // a regular file within the memory budget
  if (!bytes) return bytes.error();
  if (!isGzip(*bytes)) return simdjson::padded_string(*bytes);
  auto text = gunzipWithin(*bytes, path);
  if (!text) return text.error();
  return simdjson::padded_string(*text);
}

Status writeTraceFile(const std::string& path, std::string_view json) {
  if (!isGzipPath(path)) return support::writeFileAtomic(path, json);
  if (json.size() > 0xffffffffu) return makeError(path + ": trace too large to gzip in one piece");
  auto packed = gzipped(json, path);
  if (!packed) return packed.error();
  return support::writeFileAtomic(path, *packed);
}

}  // namespace dfc::profile
