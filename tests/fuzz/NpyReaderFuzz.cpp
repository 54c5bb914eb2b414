// The .npy reader behind `dfc run --input NAME=FILE.npy` (ir/NpyFile.h): the
// header dict, the descr, the shape's size arithmetic and the data length;
// then the conversion to a tensor when the element type is one the IR keeps.
#include "FuzzTargets.h"
#include "ir/NpyFile.h"

namespace dfc::fuzz {

void npyReader(const uint8_t* data, size_t size) {
  auto array = ir::parseNpy(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.npy");
  if (!array) return;
  for (ir::DType d : {ir::DType::F32, ir::DType::I64, ir::DType::I32, ir::DType::Bool})
    if (array->element == ir::npyElementOf(d)) {
      auto t = ir::npyToTensor(*array, d, "fuzz.npy");
      if (t) (void)ir::encodeNpy(*t);
    }
}

}  // namespace dfc::fuzz

DFC_FUZZ_ENTRY(npyReader)
