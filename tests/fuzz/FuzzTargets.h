#pragma once
// The fuzz targets (issue 9: every reader has one). Each <Reader>Fuzz.cpp
// defines its entry here and, built with DFC_LIBFUZZER (scripts/fuzz.sh,
// clang, -DDFC_BUILD_FUZZERS=ON), libFuzzer's LLVMFuzzerTestOneInput around
// it. The regular build compiles the same entries into test_fuzz, which
// replays every input kept under tests/data/fuzz/<target>/ (crashes found,
// then fixed), so CI checks them under ASan+UBSan without clang.
#include <cstddef>
#include <cstdint>

namespace dfc::fuzz {

void pefReader(const uint8_t* data, size_t size);
void onnxImporter(const uint8_t* data, size_t size);
void onnxTestData(const uint8_t* data, size_t size);
void dfirParser(const uint8_t* data, size_t size);
void yamlLoaders(const uint8_t* data, size_t size);
void chromeTraceReader(const uint8_t* data, size_t size);
void decisionsReader(const uint8_t* data, size_t size);
void runStore(const uint8_t* data, size_t size);
void gzipTrace(const uint8_t* data, size_t size);
void npyReader(const uint8_t* data, size_t size);

// Once per process: a small memory budget, so inputs that declare huge
// tensors are refused by the readers' own checks (what is fuzzed) rather
// than by libFuzzer's memory limit; a quiet log.
void setUp();

}  // namespace dfc::fuzz

#ifdef DFC_LIBFUZZER
// One target per binary: DFC_FUZZ_ENTRY(pefReader) in its .cpp.
#define DFC_FUZZ_ENTRY(fn)                                                      \
  extern "C" int LLVMFuzzerInitialize(int*, char***) {                          \
    dfc::fuzz::setUp();                                                         \
    return 0;                                                                   \
  }                                                                             \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {     \
    dfc::fuzz::fn(data, size);                                                  \
    return 0;                                                                   \
  }
#else
#define DFC_FUZZ_ENTRY(fn)
#endif
