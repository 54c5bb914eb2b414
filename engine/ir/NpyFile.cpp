#include "ir/NpyFile.h"

#include <bit>
#include <cstring>
#include <limits>
#include <optional>

#include "support/SafePath.h"

namespace dfc::ir {

static_assert(std::endian::native == std::endian::little, ".npy data is read in place: a little-endian host");

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr size_t kMaxRank = 32;

// The header dict, scanned left to right; every failure names what was expected.
class HeaderScanner {
 public:
  explicit HeaderScanner(std::string_view text) : m_text(text) {}
  void skipSpace() {
    while (m_at < m_text.size() && (m_text[m_at] == ' ' || m_text[m_at] == '\t')) ++m_at;
  }
  bool eat(char c) {
    skipSpace();
    if (m_at >= m_text.size() || m_text[m_at] != c) return false;
    ++m_at;
    return true;
  }
  bool eatWord(std::string_view word) {
    skipSpace();
    if (m_text.substr(m_at, word.size()) != word) return false;
    m_at += word.size();
    return true;
  }
  std::optional<std::string> quoted() {
    skipSpace();
    if (m_at >= m_text.size() || (m_text[m_at] != '\'' && m_text[m_at] != '"')) return std::nullopt;
    const char quote = m_text[m_at];
    const size_t end = m_text.find(quote, m_at + 1);
    if (end == std::string_view::npos) return std::nullopt;
    std::string out(m_text.substr(m_at + 1, end - m_at - 1));
    m_at = end + 1;
    return out;
  }
  std::optional<int64_t> integer() {
    skipSpace();
    int64_t v = 0;
    const size_t start = m_at;
    while (m_at < m_text.size() && m_text[m_at] >= '0' && m_text[m_at] <= '9') {
      if (v > (std::numeric_limits<int64_t>::max() - 9) / 10) return std::nullopt;
      v = v * 10 + (m_text[m_at++] - '0');
    }
    if (m_at == start) return std::nullopt;
    return v;
  }
  // "()", "(3,)", "(2, 3)" or "(2, 3,)".
  std::optional<Shape> tuple() {
    if (!eat('(')) return std::nullopt;
    Shape shape;
    while (!eat(')')) {
      auto dim = integer();
      if (!dim || shape.size() >= kMaxRank) return std::nullopt;
      shape.push_back(*dim);
      if (!eat(',') && !(shape.size() > 1 && peek(')'))) return std::nullopt;
    }
    return shape;
  }
  bool peek(char c) {
    skipSpace();
    return m_at < m_text.size() && m_text[m_at] == c;
  }
  // Only padding after the dict: spaces and the final newline.
  bool atPaddedEnd() const { return m_text.find_first_not_of(" \t\n", m_at) == std::string_view::npos; }

 private:
  std::string_view m_text;
  size_t m_at = 0;
};

// '<f4', '|u1', '|b1', '=i8'; big-endian descrs are refused by name.
Expected<NpyElement> parseDescr(const std::string& descr, const std::string& label) {
  auto bad = [&](const std::string& why) { return makeError(label + ": descr '" + descr + "': " + why); };
  if (descr.size() < 3 || descr.size() > 4) return bad("expected a byte order, a kind and a size, such as '<f4'");
  const char order = descr[0], kind = descr[1];
  const std::string digits = descr.substr(2);
  if (digits.find_first_not_of("0123456789") != std::string::npos) return bad("the size is not a number");
  NpyElement e{kind, std::stoi(digits)};
  const bool known = (kind == 'f' && (e.size == 2 || e.size == 4 || e.size == 8)) ||
                     ((kind == 'i' || kind == 'u') && (e.size == 1 || e.size == 2 || e.size == 4 || e.size == 8)) ||
                     (kind == 'b' && e.size == 1);
  if (!known) return bad("not a supported element type (f2/f4/f8, i1..i8, u1..u8, b1)");
  if (order == '>' && e.size > 1) return bad("big-endian data is not supported (save it little-endian, '<')");
  if (order != '<' && order != '=' && order != '|' && order != '>')
    return bad("unknown byte order '" + std::string(1, order) + "'");
  return e;
}

struct Header {
  NpyElement element;
  Shape shape;
};

// The three keys' values as read so far; each may be given once.
struct HeaderFields {
  std::optional<std::string> descr;
  int fortran = -1;  // -1: not given, 0: False, 1: True
  std::optional<Shape> shape;
};

// The value after "'key':"; "" when read, else what is wrong.
std::string readField(HeaderScanner& s, const std::string& key, HeaderFields& f) {
  if (key == "descr" && !f.descr) {
    f.descr = s.quoted();
    return f.descr ? "" : "'descr' is not a quoted string";
  }
  if (key == "fortran_order" && f.fortran < 0) {
    f.fortran = s.eatWord("True") ? 1 : s.eatWord("False") ? 0 : -1;
    return f.fortran >= 0 ? "" : "'fortran_order' is not True or False";
  }
  if (key == "shape" && !f.shape) {
    f.shape = s.tuple();
    return f.shape ? "" : "'shape' is not a tuple of sizes";
  }
  return "unexpected or repeated key '" + key + "'";
}

Expected<Header> parseHeaderDict(std::string_view text, const std::string& label) {
  auto bad = [&](const std::string& why) { return makeError(label + ": .npy header: " + why); };
  HeaderScanner s(text);
  if (!s.eat('{')) return bad("expected a dict ('{')");
  HeaderFields f;
  while (!s.eat('}')) {
    auto key = s.quoted();
    if (!key) return bad("expected a quoted key");
    if (!s.eat(':')) return bad("expected ':' after '" + *key + "'");
    if (std::string why = readField(s, *key, f); !why.empty()) return bad(why);
    if (!s.eat(',') && !s.peek('}')) return bad("expected ',' or '}' after '" + *key + "'");
  }
  if (!s.atPaddedEnd()) return bad("text after the dict");
  if (!f.descr || f.fortran < 0 || !f.shape) return bad("needs the keys 'descr', 'fortran_order' and 'shape'");
  if (f.fortran == 1) return bad("Fortran-order arrays are not supported (save a C-order array)");
  auto element = parseDescr(*f.descr, label);
  if (!element) return element.error();
  return Header{*element, std::move(*f.shape)};
}

uint32_t littleEndian(std::string_view bytes, size_t at, size_t width) {
  uint32_t v = 0;
  for (size_t i = 0; i < width; ++i) v |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  return v;
}

std::string shapeText(const Shape& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? "," : "") + std::to_string(shape[i]);
  return out + "]";
}

}  // namespace

std::string NpyElement::name() const {
  if (kind == 'b') return "bool";
  return std::string(1, kind) + std::to_string(size * 8);
}

std::string NpyArray::typeText() const { return element.name() + shapeText(shape); }

Expected<NpyArray> parseNpy(std::string_view bytes, const std::string& label) {
  if (bytes.size() < 10 || bytes.substr(0, kMagic.size()) != kMagic)
    return makeError(label + ": not a .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<unsigned char>(bytes[6]), minor = static_cast<unsigned char>(bytes[7]);
  if ((major != 1 && major != 2) || minor != 0)
    return makeError(label + ": .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                     " is not supported (1.0 and 2.0 are)");
  const size_t lengthWidth = major == 1 ? 2 : 4, start = 8 + lengthWidth;
  if (bytes.size() < start) return makeError(label + ": .npy header length cut off");
  const size_t headerLength = littleEndian(bytes, 8, lengthWidth);
  if (headerLength > bytes.size() - start) return makeError(label + ": .npy header longer than the file");
  auto header = parseHeaderDict(bytes.substr(start, headerLength), label);
  if (!header) return header.error();
  uint64_t count = 1;
  for (int64_t d : header->shape) {
    if (d != 0 && count > std::numeric_limits<uint64_t>::max() / 8 / static_cast<uint64_t>(d))
      return makeError(label + ": shape " + shapeText(header->shape) + " is too large");
    count *= static_cast<uint64_t>(d);
  }
  const uint64_t want = count * static_cast<uint64_t>(header->element.size), have = bytes.size() - start - headerLength;
  if (want != have)
    return makeError(label + ": " + header->element.name() + shapeText(header->shape) + " needs " +
                     std::to_string(want) + " data bytes, the file has " + std::to_string(have));
  return NpyArray{header->element, std::move(header->shape), std::string(bytes.substr(start + headerLength))};
}

Expected<NpyArray> readNpyFile(const std::string& path) {
  auto bytes = support::readRegularFile(path);
  if (!bytes) return bytes.error();
  return parseNpy(*bytes, path);
}

NpyElement npyElementOf(DType dtype) {
  switch (dtype) {
    case DType::F32:
      return {'f', 4};
    case DType::I64:
      return {'i', 8};
    case DType::I32:
      return {'i', 4};
    case DType::Bool:
      return {'b', 1};
  }
  return {};
}

Expected<Tensor> npyToTensor(const NpyArray& array, DType dtype, const std::string& label) {
  if (array.element != npyElementOf(dtype))
    return makeError(label + ": holds " + array.element.name() + " elements, " + std::string(dtypeName(dtype)) +
                     " needed");
  Tensor t(TensorType{dtype, array.shape});
  if (dtype == DType::Bool)  // any nonzero byte is true; the IR's bools are 0 or 1
    for (size_t i = 0; i < array.data.size(); ++i) t.data<bool>()[i] = array.data[i] != 0;
  else if (!array.data.empty())
    std::memcpy(t.bytes(), array.data.data(), array.data.size());
  return t;
}

std::string encodeNpy(const Tensor& tensor) {
  const NpyElement e = npyElementOf(tensor.dtype());
  std::string shape = "(";
  for (size_t i = 0; i < tensor.shape().size(); ++i) shape += (i ? ", " : "") + std::to_string(tensor.shape()[i]);
  shape += tensor.shape().size() == 1 ? ",)" : ")";
  std::string dict = std::string("{'descr': '") + (e.size == 1 ? '|' : '<') + e.kind + std::to_string(e.size) +
                     "', 'fortran_order': False, 'shape': " + shape + ", }";
  const size_t total = (10 + dict.size() + 1 + 63) / 64 * 64;  // magic, version, length, dict, '\n'
  dict.append(total - 10 - dict.size() - 1, ' ');
  dict += '\n';
  std::string out(kMagic);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>(dict.size() >> 8);
  out += dict;
  if (tensor.byteSize() > 0) out.append(reinterpret_cast<const char*>(tensor.bytes()), tensor.byteSize());
  return out;
}

}  // namespace dfc::ir
