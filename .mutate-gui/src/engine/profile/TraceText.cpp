#include "profile/TraceText.h"

#include <fcntl.h>
#include <simdjson.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "support/SafePath.h"
#include "support/SizeBudget.h"

namespace dfc::profile {
namespace {

constexpr size_t kPadding = PaddedBuffer::kPadding;
static_assert(simdjson::SIMDJSON_PADDING <= kPadding, "PaddedBuffer pads less than simdjson reads");

// The input size gzip records for its last member (modulo 2^32): a first
// guess of the output size, never trusted beyond the budget.
size_t sizeHint(std::string_view bytes) {
  if (bytes.size() < 18) return 0;
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + bytes.size() - 4);
  return size_t{p[0]} | size_t{p[1]} << 8 | size_t{p[2]} << 16 | size_t{p[3]} << 24;
}

bool allZero(std::string_view bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](char c) { return c == 0; });
}

struct Inflater {
  z_stream z{};
  bool started = false;
  ~Inflater() {
    if (started) inflateEnd(&z);
  }
};

}  // namespace

PaddedBuffer::PaddedBuffer(PaddedBuffer&& other) noexcept
    : m_data(std::exchange(other.m_data, nullptr)),
      m_size(std::exchange(other.m_size, 0)),
      m_capacity(std::exchange(other.m_capacity, 0)) {}

PaddedBuffer& PaddedBuffer::operator=(PaddedBuffer&& other) noexcept {
  if (this != &other) {
    std::free(m_data);
    m_data = std::exchange(other.m_data, nullptr);
    m_size = std::exchange(other.m_size, 0);
    m_capacity = std::exchange(other.m_capacity, 0);
  }
  return *this;
}

PaddedBuffer::~PaddedBuffer() { std::free(m_data); }

Status PaddedBuffer::reserve(size_t capacity, uint64_t alsoHeld, const std::string& what) {
  if (capacity <= m_capacity) return {};
  const auto total = support::checkedAdd(alsoHeld, uint64_t{m_capacity} + capacity + 2 * kPadding);
  if (Status st = support::checkBudget(what, total.value_or(UINT64_MAX)); !st) return st;
  char* grown = static_cast<char*>(std::realloc(m_data, capacity + kPadding));
  if (!grown) return makeError(what + ": out of memory growing to " + support::formatBytes(capacity));
  m_data = grown;
  m_capacity = capacity;
  std::memset(m_data + m_size, 0, kPadding);  // only the padding: untouched pages cost nothing
  return {};
}

void PaddedBuffer::resize(size_t size) {
  m_size = std::min(size, m_capacity);
  if (m_data) std::memset(m_data + m_size, 0, kPadding);
}

bool isGzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b;
}

Expected<PaddedBuffer> gunzipWithin(std::string_view bytes, const std::string& name, uint64_t alsoHeld) {
  const std::string what = name + " (decompressed)";
  PaddedBuffer out;
  const uint64_t budget = support::memoryBudget();
  // Deflate inflates at most ~1032:1, so a forged size field cannot reserve more than that.
  const uint64_t room = budget > alsoHeld + 2 * kPadding ? budget - alsoHeld - 2 * kPadding : 0;
  const uint64_t ceiling = std::min<uint64_t>(uint64_t{1032} * bytes.size() + (1 << 16), room);
  const size_t guess = static_cast<size_t>(std::min<uint64_t>(std::max<size_t>(sizeHint(bytes), 1 << 16), ceiling));
  if (Status st = out.reserve(guess, alsoHeld, what); !st) return st.error();
  Inflater inf;
  if (inflateInit2(&inf.z, 15 + 16) != Z_OK) return makeError(name + ": cannot start gzip decompression");
  inf.started = true;
  size_t consumed = 0;  // input handed to zlib so far
  while (true) {
    if (inf.z.avail_in == 0 && consumed < bytes.size()) {
      const size_t n = std::min<size_t>(bytes.size() - consumed, 1u << 30);
      inf.z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + consumed));
      inf.z.avail_in = static_cast<uInt>(n);
      consumed += n;
    }
    if (out.size() == out.capacity())
      if (Status st = out.reserve(out.capacity() + out.capacity() / 2, alsoHeld, what); !st) return st.error();
    const size_t room = std::min<size_t>(out.capacity() - out.size(), 1u << 30);
    inf.z.next_out = reinterpret_cast<Bytef*>(out.data() + out.size());
    inf.z.avail_out = static_cast<uInt>(room);
    const int rc = inflate(&inf.z, Z_NO_FLUSH);
    out.resize(out.size() + (room - inf.z.avail_out));
    if (rc == Z_STREAM_END) {
      // Another member may follow (concatenated .gz files are one valid file).
      const size_t at = consumed - inf.z.avail_in;
      const std::string_view rest = bytes.substr(at);
      if (rest.empty() || allZero(rest)) return out;
      if (!isGzip(rest))
        return makeError(name + ": " + std::to_string(rest.size()) + " bytes after the gzip data at byte " +
                         std::to_string(at) + " are not another gzip member");
      inflateReset(&inf.z);
      continue;
    }
    if (rc == Z_BUF_ERROR && inf.z.avail_in == 0 && consumed == bytes.size())
      return makeError(name + ": corrupt or truncated gzip data (it ends mid-stream)");
    if (rc != Z_OK && rc != Z_BUF_ERROR) return makeError(name + ": corrupt or truncated gzip data");
  }
}

TraceText::~TraceText() {
  if (m_fd >= 0) ::close(m_fd);
}

std::shared_ptr<const TraceText> TraceText::fromMemory(std::string_view json, std::string name) {
  PaddedBuffer buffer;
  if (!buffer.reserve(std::max<size_t>(json.size(), 1), 0, name)) buffer = PaddedBuffer();  // over budget: empty
  if (buffer.capacity() >= json.size()) {
    if (!json.empty()) std::memcpy(buffer.data(), json.data(), json.size());
    buffer.resize(json.size());
  }
  return fromBuffer(std::move(buffer), std::move(name));
}

std::shared_ptr<const TraceText> TraceText::fromBuffer(PaddedBuffer buffer, std::string name) {
  std::shared_ptr<TraceText> text(new TraceText());
  text->m_name = std::move(name);
  text->m_size = buffer.size();
  text->m_buffer = std::move(buffer);
  return text;
}

Expected<std::shared_ptr<const TraceText>> TraceText::open(const std::string& path) {
  DFC_TRY(support::checkRegularFile(path));  // no FIFO, device or directory; within the budget
  // O_NONBLOCK: a FIFO swapped in since the check must not block the open; fstat refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return makeError(path + ": cannot open: " + std::strerror(errno));
  std::shared_ptr<TraceText> text(new TraceText());
  text->m_fd = fd;
  text->m_name = path;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return makeError(path + ": not a regular file");
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  text->m_size = static_cast<uint64_t>(st.st_size);
  char magic[2] = {};
  if (text->read(0, 2, magic) != 2 || !isGzip(std::string_view(magic, 2))) return std::shared_ptr<const TraceText>(text);
  auto packed = support::readRegularFile(path);
  if (!packed) return packed.error();
  auto inflated = gunzipWithin(*packed, path, packed->size());
  if (!inflated) return inflated.error();
  return fromBuffer(std::move(*inflated), path);
}

Expected<PaddedBuffer> TraceText::load(const std::string& path) {
  auto text = open(path);
  if (!text) return text.error();
  if ((*text)->memory()) {  // inflated: the only owner gives its buffer up
    auto owned = std::const_pointer_cast<TraceText>(std::move(*text));
    return std::move(owned->m_buffer);
  }
  PaddedBuffer out;
  const TraceText& t = **text;
  if (Status st = out.reserve(static_cast<size_t>(t.size()), 0, path); !st) return st.error();
  const int64_t got = t.read(0, static_cast<size_t>(t.size()), out.data());
  if (got < 0 || static_cast<uint64_t>(got) != t.size()) return makeError(path + ": read failed (the file changed)");
  out.resize(static_cast<size_t>(got));
  return out;
}

int64_t TraceText::read(uint64_t offset, size_t n, char* out) const {
  if (offset >= m_size) return 0;
  n = static_cast<size_t>(std::min<uint64_t>(n, m_size - offset));
  if (m_fd < 0) {
    std::memcpy(out, m_buffer.data() + offset, n);
    return static_cast<int64_t>(n);
  }
  size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(m_fd, out + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;  // the file shrank or failed since it was opened
    got += static_cast<size_t>(r);
  }
  return static_cast<int64_t>(got);
}

std::string TraceText::range(uint64_t offset, size_t n) const {
  std::string out(n, '\0');
  const int64_t got = read(offset, n, out.data());
  if (got < 0 || static_cast<size_t>(got) != n) return {};
  return out;
}

}  // namespace dfc::profile
