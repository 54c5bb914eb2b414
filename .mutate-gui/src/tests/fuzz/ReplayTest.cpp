// Every input kept under tests/data/fuzz/<target>/ (a crash a fuzzer found,
// fixed since) runs through its target again. In CI this runs under
// ASan+UBSan too, so a fixed memory error that comes back fails here.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "FuzzTargets.h"

namespace fs = std::filesystem;

namespace {

struct Target {
  const char* name;  // the folder under tests/data/fuzz and the binary fuzz_<name>
  void (*entry)(const uint8_t* data, size_t size);
};

const Target kTargets[] = {
    {"pef_reader", dfc::fuzz::pefReader},
    {"onnx_importer", dfc::fuzz::onnxImporter},
    {"dfir_parser", dfc::fuzz::dfirParser},
    {"yaml_loaders", dfc::fuzz::yamlLoaders},
    {"chrome_trace_reader", dfc::fuzz::chromeTraceReader},
    {"decisions_reader", dfc::fuzz::decisionsReader},
    {"run_store", dfc::fuzz::runStore},
    {"gzip_trace", dfc::fuzz::gzipTrace},
<<<<<<< HEAD
    {"onnx_test_data", dfc::fuzz::onnxTestData},
=======
    {"npy_reader", dfc::fuzz::npyReader},
>>>>>>> issue-33-run
};

}  // namespace

TEST_CASE("fuzz regression inputs replay without a crash", "[fuzz]") {
  dfc::fuzz::setUp();
  const fs::path root = fs::path(DFC_TEST_DATA_DIR) / "fuzz";
  int replayed = 0;
  for (const Target& target : kTargets) {
    fs::path dir = root / target.name;
    if (!fs::is_directory(dir)) continue;
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (!entry.is_regular_file() || entry.path().filename() == "README.md") continue;
      std::ifstream in(entry.path(), std::ios::binary);
      std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      INFO(target.name << ": " << entry.path().filename().string());
      target.entry(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      ++replayed;
    }
  }
  CHECK(replayed > 0);
}
