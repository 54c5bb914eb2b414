#include "ir/Tensor.h"

#include <cstdlib>
#include <cstring>
#include <new>

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

Tensor Tensor::clone() const {
  if (empty()) return {};
  Tensor t(m_type);
  std::memcpy(t.bytes(), bytes(), byteSize());
  return t;
}

}  // namespace dfc::ir
