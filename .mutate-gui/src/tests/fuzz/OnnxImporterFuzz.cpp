// The ONNX importer: protobuf parse, OnnxPrecheck, libonnx's checker and
// shape inference, then every op mapper. External data resolves inside an
// empty folder of its own, so no input can read a real file.
#include <filesystem>

#include "FuzzTargets.h"
#include "onnx/OnnxImporter.h"

namespace dfc::fuzz {

void onnxImporter(const uint8_t* data, size_t size) {
  static const std::string folder = [] {
    auto dir = std::filesystem::temp_directory_path() / "dfc-fuzz-onnx-empty";
    std::filesystem::create_directories(dir);
    return dir.string();
  }();
  std::string bytes(reinterpret_cast<const char*>(data), size);
  (void)onnx::importOnnxBytes(bytes, folder, "fuzz.onnx");
}

}  // namespace dfc::fuzz

DFC_FUZZ_ENTRY(onnxImporter)
