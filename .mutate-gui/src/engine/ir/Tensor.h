#pragma once
// TensorType (dtype + shape) and Tensor (a type plus an owned, 64-byte
// aligned buffer). Plain data, shared by the IR, the PEF and the runtime.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dfc::ir {

enum class DType : uint8_t { F32, I64, I32, Bool };

std::string_view dtypeName(DType dtype);                  // "f32", "i64", "i32", "bool"
bool parseDType(std::string_view text, DType& out);       // inverse of dtypeName
size_t dtypeSize(DType dtype);

using Shape = std::vector<int64_t>;

struct TensorType {
  DType dtype = DType::F32;
  Shape shape;  // empty: a scalar

  int64_t numElements() const;
  size_t byteSize() const { return static_cast<size_t>(numElements()) * dtypeSize(dtype); }
  size_t rank() const { return shape.size(); }
  std::string toString() const;  // "f32[64,1,28,28]", "f32[]"
  bool operator==(const TensorType&) const = default;
};

// How data that is not stored is made. Zoo weights and optimizer state are
// recipes, so compile time and PEF size do not grow with the parameter count;
// the runtime materializes them (clone()) when it loads the PEF.
struct InitRecipe {
  enum class Kind : uint8_t { Zeros, Fill, Uniform };
  Kind kind = Kind::Zeros;
  double value = 0.0;  // Fill: the value; Uniform: the bound (data drawn from [-value, value])
  uint64_t seed = 0;   // Uniform: seed of its own mt19937_64 stream (< 2^63, so it prints as an int)
  bool operator==(const InitRecipe&) const = default;
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(TensorType type);  // zero-filled
  // Wraps storage owned elsewhere (e.g. a slice of the runtime's arena through
  // shared_ptr's aliasing constructor): no allocation, no zero-fill.
  Tensor(TensorType type, std::shared_ptr<std::byte> storage)
      : m_type(std::move(type)), m_data(std::move(storage)) {}
  static Tensor scalarF32(float value);
  // No data yet: `recipe` makes it. Uniform and Fill need f32.
  static Tensor deferred(TensorType type, InitRecipe recipe);

  const TensorType& type() const { return m_type; }
  const Shape& shape() const { return m_type.shape; }
  DType dtype() const { return m_type.dtype; }
  int64_t numElements() const { return m_type.numElements(); }
  size_t byteSize() const { return m_type.byteSize(); }
  bool empty() const { return !m_data && !m_recipe; }
  // A deferred tensor has a recipe and no buffer: bytes()/data() are null until clone().
  bool isDeferred() const { return m_recipe.has_value(); }
  const InitRecipe* recipe() const { return m_recipe ? &*m_recipe : nullptr; }

  std::byte* bytes() { return m_data.get(); }
  const std::byte* bytes() const { return m_data.get(); }
  template <typename T>
  T* data() { return reinterpret_cast<T*>(m_data.get()); }
  template <typename T>
  const T* data() const { return reinterpret_cast<const T*>(m_data.get()); }
  template <typename T>
  std::span<T> span() { return {data<T>(), static_cast<size_t>(numElements())}; }
  template <typename T>
  std::span<const T> span() const { return {data<T>(), static_cast<size_t>(numElements())}; }

  // An independent copy with data: a deferred tensor is materialized from its recipe.
  Tensor clone() const;

 private:
  struct AlignedFree {
    void operator()(std::byte* p) const;
  };
  TensorType m_type;
  std::shared_ptr<std::byte> m_data;  // shared: copies of a Tensor alias; clone() to copy
  std::optional<InitRecipe> m_recipe;  // set: deferred, m_data is null
};

}  // namespace dfc::ir
