#pragma once
// Private to the PEF room: the binary layout constants, little-endian byte
// cursors, and the per-chunk encoders/decoders shared by writer and reader.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "pef/Pef.h"

namespace dfc::pef::detail {

constexpr char kMagic[4] = {'P', 'E', 'F', '\0'};
constexpr size_t kHeaderSize = 16;    // magic, u16 major, u16 minor, u32 flags, u32 count
constexpr size_t kEntrySize = 28;     // char kind[8], u64 offset, u64 size, u32 crc32
constexpr size_t kAlign = 64;         // chunks and weight data start 64-byte aligned
constexpr uint32_t kMaxChunks = 256;  // far more than any writer emits; bounds the table

inline size_t alignUp(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

class ByteWriter {
 public:
  void u8(uint8_t v) { m_out.push_back(static_cast<char>(v)); }
  void u16(uint16_t v) { le(v, 2); }
  void u32(uint32_t v) { le(v, 4); }
  void u64(uint64_t v) { le(v, 8); }
  void bytes(const void* p, size_t n) { m_out.append(static_cast<const char*>(p), n); }
  void padTo(size_t align) { m_out.resize((m_out.size() + align - 1) / align * align, '\0'); }
  size_t size() const { return m_out.size(); }
  std::string& str() { return m_out; }

 private:
  void le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) m_out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  std::string m_out;
};

// Reads within [data, data+size); every read checks the bounds first.
class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : m_data(data), m_size(size) {}
  bool u8(uint8_t& v) { return le(v, 1); }
  bool u16(uint16_t& v) { return le(v, 2); }
  bool u32(uint32_t& v) { return le(v, 4); }
  bool u64(uint64_t& v) { return le(v, 8); }
  bool bytes(void* out, size_t n) {
    if (n > m_size - m_pos) return false;
    if (n) std::memcpy(out, m_data + m_pos, n);
    m_pos += n;
    return true;
  }
  bool skipTo(size_t pos) {
    if (pos > m_size || pos < m_pos) return false;
    m_pos = pos;
    return true;
  }
  size_t pos() const { return m_pos; }
  size_t left() const { return m_size - m_pos; }

 private:
  template <typename T>
  bool le(T& v, int n) {
    if (static_cast<size_t>(n) > m_size - m_pos) return false;
    uint64_t acc = 0;
    for (int i = 0; i < n; ++i) acc |= static_cast<uint64_t>(m_data[m_pos + static_cast<size_t>(i)]) << (8 * i);
    m_pos += static_cast<size_t>(n);
    v = static_cast<T>(acc);
    return true;
  }
  const uint8_t* m_data;
  size_t m_size;
  size_t m_pos = 0;
};

// Chunk payloads. Decoders return errors without the file/chunk prefix.
std::string encodeMeta(const PefMeta& meta);
Status decodeMeta(std::string_view json, PefMeta& out);
std::string encodeSections(const partition::Plan& plan);
std::string encodeSchedule(const partition::Plan& plan);
Status decodeSections(std::string_view json, partition::Plan& out);
Status decodeSchedule(std::string_view json, partition::Plan& out);
Status checkJson(std::string_view json);  // well-formed JSON
std::string encodeWeights(const ir::Graph& g);
// Fills g.initializers. zeroFill false: zero-filled entries become a Zeros recipe, not a buffer.
Status decodeWeights(std::string_view bytes, ir::Graph& g, bool zeroFill = true);

}  // namespace dfc::pef::detail
