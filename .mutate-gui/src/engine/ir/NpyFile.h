#pragma once
// NumPy .npy files, the subset `dfc run --input` reads and `--output-dir`
// writes: format versions 1.0 and 2.0, little-endian (or one-byte) elements
// f16/f32/f64, i8..i64, u8..u64 and bool, C order. Hand-written: the header
// is a Python dict literal with three keys ('descr', 'fortran_order',
// 'shape'), nothing more is needed or accepted.
#include <string>
#include <string_view>

#include "ir/Tensor.h"
#include "support/Error.h"

namespace dfc::ir {

// An element type as a .npy descr names it: kind 'f', 'i', 'u' or 'b' and a size in bytes.
struct NpyElement {
  char kind = 'f';
  int size = 4;
  std::string name() const;  // "f32", "u8", "bool": the IR's spelling, so errors read alike
  bool operator==(const NpyElement&) const = default;
};

struct NpyArray {
  NpyElement element;
  Shape shape;                   // () is a scalar
  std::string data;              // exactly numElements x element.size bytes, little-endian, C order
  std::string typeText() const;  // "f64[2,3]", as TensorType::toString writes types
};

// `label` (the file name) leads every error.
Expected<NpyArray> parseNpy(std::string_view bytes, const std::string& label);
Expected<NpyArray> readNpyFile(const std::string& path);
// The element type the IR stores for `dtype` (f32 -> {'f', 4}).
NpyElement npyElementOf(DType dtype);
// The array as a tensor of `dtype`: its element type must be the one npyElementOf(dtype) names.
Expected<Tensor> npyToTensor(const NpyArray& array, DType dtype, const std::string& label);
// A version 1.0 .npy file of `tensor` (header padded to 64 bytes, as numpy writes it).
std::string encodeNpy(const Tensor& tensor);

}  // namespace dfc::ir
