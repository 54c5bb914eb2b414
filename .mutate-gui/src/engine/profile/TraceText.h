#pragma once
// The text of a chrome trace as the readers see it. A plain file is never
// held whole: the chunked reader reads it in pieces (pread) and a slice's
// args are read back from the file when they are shown, so opening a 1 GB
// trace costs its parsed form, not the file. A gzip file (`.json.gz`, one
// member or several, as `cat a.gz b.gz` makes) is inflated into one padded
// buffer; the memory budget counts every byte that is really allocated (the
// compressed input, the buffer's capacity and its padding, and both buffers
// while it grows), not the text alone.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "support/Error.h"

namespace dfc::profile {

// Bytes with simdjson's padding zeroed after them, grown by hand so that
// what is allocated is known (std::string doubles, and its copy into a
// padded_string doubles again).
class PaddedBuffer {
 public:
  PaddedBuffer() = default;
  PaddedBuffer(PaddedBuffer&& other) noexcept;
  PaddedBuffer& operator=(PaddedBuffer&& other) noexcept;
  PaddedBuffer(const PaddedBuffer&) = delete;
  PaddedBuffer& operator=(const PaddedBuffer&) = delete;
  ~PaddedBuffer();

  // Grows the capacity to at least `capacity`, checking against the memory
  // budget the old and the new block (both live while the bytes move) plus
  // `alsoHeld` bytes the caller holds. `what` names the file in the error.
  Status reserve(size_t capacity, uint64_t alsoHeld, const std::string& what);
  char* data() { return m_data; }
  const char* data() const { return m_data ? m_data : kEmpty; }
  size_t size() const { return m_size; }
  size_t capacity() const { return m_capacity; }
  static constexpr size_t kPadding = 64;  // simdjson's, checked in TraceText.cpp
  size_t paddedCapacity() const { return m_capacity + kPadding; }  // what simdjson may read
  void resize(size_t size);  // within the capacity; the padding after it is zeroed
  std::string_view view() const { return {data(), m_size}; }

 private:
  static constexpr char kEmpty[kPadding] = {};
  char* m_data = nullptr;
  size_t m_size = 0;
  size_t m_capacity = 0;
};

bool isGzip(std::string_view bytes);  // starts with gzip's magic
// Inflates gzip data (every member, in order); corrupt or truncated data,
// bytes after the last member that are not zero padding, and output past the
// memory budget are errors naming `name`. `alsoHeld`: bytes the caller holds
// meanwhile (the compressed input), counted against the budget too.
Expected<PaddedBuffer> gunzipWithin(std::string_view bytes, const std::string& name, uint64_t alsoHeld = 0);

class TraceText {
 public:
  // A regular file within the memory budget: plain JSON stays on disk (read
  // in ranges), gzip is inflated. Errors name the file.
  static Expected<std::shared_ptr<const TraceText>> open(const std::string& path);
  // The whole text in one padded buffer (plain read, gzip inflated), for the
  // readers that parse it in one piece.
  static Expected<PaddedBuffer> load(const std::string& path);
  static std::shared_ptr<const TraceText> fromMemory(std::string_view json, std::string name);
  static std::shared_ptr<const TraceText> fromBuffer(PaddedBuffer buffer, std::string name);
  TraceText(const TraceText&) = delete;
  TraceText& operator=(const TraceText&) = delete;
  ~TraceText();

  const std::string& name() const { return m_name; }
  uint64_t size() const { return m_size; }
  // [offset, offset + n) into `out`, clipped at the end; the bytes read, or
  // -1 when the file cannot be read any more (cut short since it was opened).
  int64_t read(uint64_t offset, size_t n, char* out) const;
  std::string range(uint64_t offset, size_t n) const;  // "" when unreadable
  // The whole text, padded, when it is held in memory (gzip, fromMemory); else null.
  const char* memory() const { return m_fd < 0 ? m_buffer.data() : nullptr; }

 private:
  TraceText() = default;
  std::string m_name;
  uint64_t m_size = 0;
  int m_fd = -1;
  PaddedBuffer m_buffer;
};

}  // namespace dfc::profile
