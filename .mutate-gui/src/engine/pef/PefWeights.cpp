// The weights chunk: per initializer (Params and Consts alike)
//   u32 name length, name, u8 dtype, u8 flags, u8[2] reserved, u32 rank, i64 dims[rank],
//   u64 byte size, then by flags:
//     0:           zero padding to a 64-byte boundary, raw data
//     kZeroFilled: nothing (all zeros)
//     kRecipe:     u8 kind, u8[7] reserved, f64 value (bits), u64 seed: an init recipe
// Chunks start 64-byte aligned in the file, so the data is aligned there too.
#include <bit>
#include <cmath>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "pef/PefFormat.h"

namespace dfc::pef::detail {
namespace {

constexpr uint32_t kMaxRank = 16;
constexpr uint8_t kZeroFilled = 1;  // entry flag: no data follows, the tensor is all zeros
constexpr uint8_t kRecipe = 2;      // entry flag: an init recipe follows instead of data

bool allZero(const ir::Tensor& t) {
  const std::byte* p = t.bytes();
  const size_t n = t.byteSize();
  return n == 0 || (p[0] == std::byte{0} && std::memcmp(p, p + 1, n - 1) == 0);
}

Status checkRecipe(const std::string& name, const ir::InitRecipe& r, ir::DType dtype) {
  using Kind = ir::InitRecipe::Kind;
  if (r.kind != Kind::Zeros && r.kind != Kind::Fill && r.kind != Kind::Uniform)
    return makeError("weights for '" + name + "': unknown init recipe kind " + std::to_string(static_cast<int>(r.kind)));
  if (r.kind != Kind::Zeros && dtype != ir::DType::F32)
    return makeError("weights for '" + name + "': fill and uniform recipes need f32");
  if (!std::isfinite(r.value) || (r.kind == Kind::Uniform && r.value < 0))
    return makeError("weights for '" + name + "': bad init recipe value");
  return {};
}

}  // namespace

std::string encodeWeights(const ir::Graph& g) {
  ByteWriter w;
  uint32_t count = 0;
  for (const auto& [id, t] : g.initializers)
    if (!t.empty()) ++count;
  w.u32(count);
  for (const auto& [id, t] : g.initializers) {
    if (t.empty()) continue;
    const std::string& name = g.value(id).name;
    w.u32(static_cast<uint32_t>(name.size()));
    w.bytes(name.data(), name.size());
    // Zoo weights and optimizer state are recipes (a few bytes, not megabytes);
    // an all-zero tensor with data is stored as a flag, not as bytes.
    const ir::InitRecipe* recipe = t.recipe();
    bool zeros = !recipe && allZero(t);
    w.u8(static_cast<uint8_t>(t.dtype()));
    w.u8(recipe ? kRecipe : zeros ? kZeroFilled : 0);
    w.u8(0);
    w.u8(0);
    w.u32(static_cast<uint32_t>(t.shape().size()));
    for (int64_t d : t.shape()) w.u64(static_cast<uint64_t>(d));
    w.u64(t.byteSize());
    if (recipe) {
      w.u8(static_cast<uint8_t>(recipe->kind));
      for (int i = 0; i < 7; ++i) w.u8(0);
      w.u64(std::bit_cast<uint64_t>(recipe->value));
      w.u64(recipe->seed);
      continue;
    }
    if (zeros) continue;
    w.padTo(kAlign);
    w.bytes(t.bytes(), t.byteSize());
  }
  return std::move(w.str());
}

Status decodeWeights(std::string_view bytes, ir::Graph& g, bool zeroFill) {
  std::unordered_map<std::string, ir::ValueId> byName;
  for (const ir::Value& v : g.values) byName.emplace(v.name, v.id);
  ByteReader r(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  auto truncated = [] { return makeError("truncated weight entry"); };
  uint32_t count = 0;
  if (!r.u32(count)) return truncated();
  std::unordered_set<ir::ValueId> seen;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t nameLen = 0, rank = 0;
    if (!r.u32(nameLen) || nameLen > r.left()) return truncated();
    std::string name(nameLen, '\0');
    uint8_t dtype = 0, reserved[3];
    if (!r.bytes(name.data(), nameLen) || !r.u8(dtype) || !r.bytes(reserved, 3) || !r.u32(rank)) return truncated();
    if (dtype > static_cast<uint8_t>(ir::DType::Bool)) return makeError("weights for '" + name + "': unknown dtype");
    if (rank > kMaxRank) return makeError("weights for '" + name + "': rank " + std::to_string(rank) + " too large");
    ir::TensorType type{static_cast<ir::DType>(dtype), {}};
    for (uint32_t d = 0; d < rank; ++d) {
      uint64_t dim = 0;
      if (!r.u64(dim)) return truncated();
      type.shape.push_back(static_cast<int64_t>(dim));
    }
    uint64_t size = 0;
    if (!r.u64(size)) return truncated();
    auto it = byName.find(name);
    if (it == byName.end()) return makeError("weights for unknown value '" + name + "'");
    ir::Value& v = g.value(it->second);
    if (v.kind != ir::ValueKind::Param && v.kind != ir::ValueKind::Const)
      return makeError("weights for '" + name + "', which is not a param or const");
    // Comparing with the graph's (already bounded) type first keeps sizes sane.
    if (!(type == v.type))
      return makeError("weights for '" + name + "' have type " + type.toString() + ", the graph says " + v.type.toString());
    if (size != v.type.byteSize())
      return makeError("weights for '" + name + "' hold " + std::to_string(size) + " bytes, expected " +
                       std::to_string(v.type.byteSize()));
    if (!seen.insert(v.id).second) return makeError("weights for '" + name + "' appear twice");
    if (reserved[0] != 0 && reserved[0] != kZeroFilled && reserved[0] != kRecipe)
      return makeError("weights for '" + name + "': unknown flags " + std::to_string(reserved[0]));
    if (reserved[0] == kRecipe) {
      uint8_t kind = 0, pad[7];
      uint64_t valueBits = 0, seed = 0;
      if (!r.u8(kind) || !r.bytes(pad, 7) || !r.u64(valueBits) || !r.u64(seed)) return truncated();
      ir::InitRecipe recipe{static_cast<ir::InitRecipe::Kind>(kind), std::bit_cast<double>(valueBits), seed};
      DFC_TRY(checkRecipe(name, recipe, v.type.dtype));
      g.initializers[v.id] = ir::Tensor::deferred(v.type, recipe);
      continue;
    }
    if (reserved[0] & kZeroFilled) {
      g.initializers[v.id] = zeroFill ? ir::Tensor(v.type)  // zero-filled by construction
                                      : ir::Tensor::deferred(v.type, {ir::InitRecipe::Kind::Zeros, 0.0, 0});
      continue;
    }
    size_t dataAt = alignUp(r.pos());
    if (!r.skipTo(dataAt) || size > r.left()) return truncated();
    ir::Tensor t(v.type);
    if (!r.bytes(t.bytes(), size)) return truncated();
    g.initializers[v.id] = std::move(t);
  }
  if (r.left() != 0) return makeError(std::to_string(r.left()) + " stray bytes after the last weight entry");
  for (const ir::Value& v : g.values)
    if ((v.kind == ir::ValueKind::Param || v.kind == ir::ValueKind::Const) && !seen.count(v.id))
      return makeError("no weights for " + std::string(v.kind == ir::ValueKind::Param ? "param" : "const") + " '" +
                       v.name + "'");
  return {};
}

}  // namespace dfc::pef::detail
