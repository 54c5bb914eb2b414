// The conformance suite's test data reader (onnx/TestData.h): the first byte
// picks the form (tensor, sequence, optional), the rest is the serialized
// proto. External data resolves inside an empty folder of its own.
#include <filesystem>

#include "FuzzTargets.h"
#include "onnx/TestData.h"

namespace dfc::fuzz {

void onnxTestData(const uint8_t* data, size_t size) {
  static const std::string folder = [] {
    auto dir = std::filesystem::temp_directory_path() / "dfc-fuzz-onnx-data-empty";
    std::filesystem::create_directories(dir);
    return dir.string();
  }();
  if (size == 0) return;
  const auto form = static_cast<onnx::ValueForm>(data[0] % 3);
  std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  (void)onnx::parseTestValue(bytes, form, "fuzz.pb", folder);
}

}  // namespace dfc::fuzz

DFC_FUZZ_ENTRY(onnxTestData)
