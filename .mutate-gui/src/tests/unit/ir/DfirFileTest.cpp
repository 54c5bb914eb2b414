// A user's .dfir is checked against its own lines before any pass runs
// (issue 9): an invalid model used to exit 1 blaming "decompose-composites"
// or autograd; a 2^36-element param died of bad_alloc; /dev/zero read forever.
#include <catch2/catch.hpp>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "ir/DfirFile.h"
#include "support/SizeBudget.h"

using namespace dfc;

namespace {

std::string modelError(const std::string& text) {
  auto g = ir::parseDfirModel(text, "m.dfir");
  return g ? std::string("<ok>") : g.error().message();
}

}  // namespace

TEST_CASE("an invalid .dfir is reported at its own line, before any pass", "[ir][dfir]") {
  CHECK(modelError("graph m {\n  input %x : f32[2,4]\n  param %w : f32[3,4]\n"
                   "  %y : f32[2,3] = matmul(%x, %w) {trans_a = 0, trans_b = 1} name=\"mm\"\n  output %y\n}\n") ==
        "<ok>");
  CHECK(modelError("graph m {\n  input %x : f32[2,4]\n  param %w : f32[3,4]\n"
                   "  %y : f32[2,3] = matmul(%x, %w) {trans_a = 0, trans_b = 0} name=\"mm\"\n  output %y\n}\n") ==
        "m.dfir:4: node 'mm' (matmul): inner dimensions differ: [2,4] x [3,4]");
  CHECK(modelError("graph m {\n  input %x : f32[2,4]\n  %y : f32[2,4] = relu(%x) name=\"r\"\n"
                   "  %z : f32[2,5] = relu(%y) name=\"r2\"\n  output %z\n}\n") ==
        "m.dfir:4: node 'r2' (relu): output '%z' is stored as f32[2,5] but the op gives f32[2,4]");
  CHECK(modelError("graph m {\n  input %x : f32[2,4]\n  input %lbl : i64[2]\n  %y : f32[2,4] = relu(%lbl) name=\"r\"\n"
                   "  output %y\n}\n")
            .rfind("m.dfir:4: node 'r' (relu): input '%lbl' must be f32", 0) == 0);
}

TEST_CASE("a .dfir's declared sizes are checked against the memory budget", "[ir][dfir]") {
  CHECK(modelError("graph m {\n  input %x : f32[2,65536]\n  param %w : f32[1048576,65536]\n"
                   "  %y : f32[2,1048576] = matmul(%x, %w) {trans_a = 0, trans_b = 1} name=\"mm\"\n  output %y\n}\n")
            .rfind("m.dfir:3: param 'w' f32[1048576,65536] needs 256.0 GiB, more than the memory budget", 0) == 0);
  support::setMemoryBudget(1 << 20);
  std::string err = modelError("graph m {\n  input %x : f32[512,512]\n  %y : f32[512,512] = relu(%x) name=\"r\"\n"
                               "  output %y\n}\n");
  support::setMemoryBudget(0);
  CHECK(err.rfind("m.dfir:2: input 'x' f32[512,512] needs 1.0 MiB", 0) != 0);  // exactly the budget: fits
  CHECK(err.rfind("m.dfir: the graph's weights, inputs and largest intermediate", 0) == 0);
}

TEST_CASE("a .dfir that is a FIFO or a device is refused without reading", "[ir][dfir]") {
  auto dir = std::filesystem::temp_directory_path() / ("dfc-dfir-" + std::to_string(std::random_device{}()));
  std::filesystem::create_directories(dir);
  std::string fifo = (dir / "m.dfir").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto g = ir::loadDfirFile(fifo);
  REQUIRE_FALSE(g);
  CHECK(g.error().message() == fifo + ": is a FIFO, not a regular file");
  std::filesystem::create_symlink("/dev/zero", dir / "z.dfir");
  g = ir::loadDfirFile((dir / "z.dfir").string());
  REQUIRE_FALSE(g);
  CHECK(g.error().message().find("a character device") != std::string::npos);
  std::filesystem::remove_all(dir);
}
