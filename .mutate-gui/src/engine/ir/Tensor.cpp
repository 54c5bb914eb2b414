#include "ir/Tensor.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>

namespace dfc::ir {

std::string_view dtypeName(DType dtype) {
  switch (dtype) {
    case DType::F32: return "f32";
    case DType::I64: return "i64";
    case DType::I32: return "i32";
    case DType::Bool: return "bool";
  }
  return "?";
}

bool parseDType(std::string_view text, DType& out) {
  for (DType d : {DType::F32, DType::I64, DType::I32, DType::Bool}) {
    if (dtypeName(d) == text) {
      out = d;
      return true;
    }
  }
  return false;
}

size_t dtypeSize(DType dtype) {
  switch (dtype) {
    case DType::F32: return 4;
    case DType::I64: return 8;
    case DType::I32: return 4;
    case DType::Bool: return 1;
  }
  return 0;
}

int64_t TensorType::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string TensorType::toString() const {
  std::string s(dtypeName(dtype));
  s += '[';
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(shape[i]);
  }
  s += ']';
  return s;
}

void Tensor::AlignedFree::operator()(std::byte* p) const { std::free(p); }

Tensor::Tensor(TensorType type) : m_type(std::move(type)) {
  size_t bytes = m_type.byteSize();
  size_t rounded = ((bytes + 63) / 64) * 64;
  if (rounded == 0) rounded = 64;
  auto* p = static_cast<std::byte*>(std::aligned_alloc(64, rounded));
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, rounded);
  m_data = std::shared_ptr<std::byte>(p, AlignedFree{});
}

Tensor Tensor::scalarF32(float value) {
  Tensor t(TensorType{DType::F32, {}});
  *t.data<float>() = value;
  return t;
}

Tensor Tensor::deferred(TensorType type, InitRecipe recipe) {
  Tensor t;
  t.m_type = std::move(type);
  t.m_recipe = recipe;
  return t;
}

namespace {

// The same uniform draw as the model builders always used: the top 53 bits of
// the engine, so the data is identical on every standard library.
void fillUniform(std::span<float> out, double bound, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (float& x : out) {
    double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    x = static_cast<float>(-bound + 2.0 * bound * u);
  }
}

}  // namespace

Tensor Tensor::clone() const {
  if (empty()) return {};
  if (m_recipe) {
    Tensor t(m_type);  // zero-filled
    if (m_recipe->kind == InitRecipe::Kind::Fill && m_type.dtype == DType::F32)
      std::fill(t.span<float>().begin(), t.span<float>().end(), static_cast<float>(m_recipe->value));
    else if (m_recipe->kind == InitRecipe::Kind::Uniform && m_type.dtype == DType::F32)
      fillUniform(t.span<float>(), m_recipe->value, m_recipe->seed);
    return t;
  }
  Tensor t(m_type);
  std::memcpy(t.bytes(), bytes(), byteSize());
  return t;
}

}  // namespace dfc::ir
