#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "ir/Printer.h"
#include "pef/Pef.h"
#include "unit/ir/SampleGraph.h"
#include "unit/pef/SamplePef.h"

using namespace dfc;
using dfc::ir::test::graphDiff;
using dfc::pef::test::samplePef;

namespace {

std::string tempPath(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("dfc_pef_test_" + std::to_string(std::random_device{}()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

std::vector<uint8_t> readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<uint8_t> sampleBytes() {
  std::string path = tempPath("every_op.pef");
  auto st = pef::writePef(samplePef(), path);
  REQUIRE(st.ok());
  return readBytes(path);
}

std::string parseError(const std::vector<uint8_t>& bytes) {
  auto r = pef::parsePef(bytes, "x.pef");
  return r ? std::string("<ok>") : r.error().message();
}

uint64_t le(const std::vector<uint8_t>& b, size_t at, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(b[at + static_cast<size_t>(i)]) << (8 * i);
  return v;
}

bool planEqual(const partition::Plan& a, const partition::Plan& b) {
  if (a.level != b.level || a.schedule != b.schedule || a.sections.size() != b.sections.size() ||
      a.hypersections.size() != b.hypersections.size())
    return false;
  for (size_t i = 0; i < a.sections.size(); ++i) {
    const auto &x = a.sections[i], &y = b.sections[i];
    const auto &ex = x.estimate, &ey = y.estimate;
    if (x.id != y.id || x.name != y.name || x.type != y.type || x.nodes != y.nodes || x.hyperfunction != y.hyperfunction ||
        x.hypersection != y.hypersection || ex.flop != ey.flop || ex.ddrBytes != ey.ddrBytes || ex.pcus != ey.pcus ||
        ex.pmus != ey.pmus || ex.computeUs != ey.computeUs || ex.memoryUs != ey.memoryUs || ex.latencyUs != ey.latencyUs)
      return false;
  }
  for (size_t i = 0; i < a.hypersections.size(); ++i) {
    const auto &x = a.hypersections[i], &y = b.hypersections[i];
    if (x.id != y.id || x.name != y.name || x.sections != y.sections) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("PEF round trip keeps meta, graph, weights, plan and report", "[pef]") {
  pef::Pef in = samplePef();
  std::string path = tempPath("every_op.pef");
  REQUIRE(pef::writePef(in, path).ok());
  auto out = pef::readPef(path);
  INFO((out ? "" : out.error().message()));
  REQUIRE(out.ok());
  const pef::PefMeta &a = in.meta, &b = out->meta;
  CHECK(a.pefName == b.pefName);
  CHECK(a.model == b.model);
  CHECK(a.optLevel == b.optLevel);
  CHECK(a.arch == b.arch);
  CHECK(a.compilerVersion == b.compilerVersion);
  CHECK(a.createdAt == b.createdAt);
  CHECK(a.args == b.args);
  CHECK(a.batchSize == b.batchSize);
  CHECK(a.inference == b.inference);
  CHECK(a.imageInput == b.imageInput);
  CHECK(a.labelsInput == b.labelsInput);
  CHECK(a.lrInput == b.lrInput);
  CHECK(a.lossOutput == b.lossOutput);
  CHECK(a.logitsOutput == b.logitsOutput);
  CHECK(a.defaultLr == b.defaultLr);
  CHECK(ir::printGraph(out->graph) == ir::printGraph(in.graph));
  CHECK(graphDiff(in.graph, out->graph, true) == "");  // weights bit-equal, params and consts
  CHECK(planEqual(in.plan, out->plan));
  CHECK(out->reportJson == in.reportJson);
  auto bytes = readBytes(path);
  REQUIRE(bytes.size() > 16);
  CHECK(std::string(bytes.begin(), bytes.begin() + 4) == std::string("PEF\0", 4));
}

TEST_CASE("PEF reader refuses every truncation", "[pef]") {
  auto bytes = sampleBytes();
  REQUIRE(parseError(bytes) == "<ok>");
  std::vector<size_t> lengths;
  for (size_t n = 0; n < 200; ++n) lengths.push_back(n);
  for (size_t n = 200; n < bytes.size(); n += bytes.size() / 97 + 1) lengths.push_back(n);
  lengths.push_back(bytes.size() - 1);
  for (size_t n : lengths) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    std::string err = parseError(cut);
    INFO("length " << n);
    CHECK(err.rfind("x.pef: ", 0) == 0);
  }
}

TEST_CASE("PEF reader detects a flipped byte in every chunk", "[pef]") {
  auto bytes = sampleBytes();
  uint64_t count = le(bytes, 12, 4);
  REQUIRE(count == 6);
  for (uint64_t i = 0; i < count; ++i) {
    size_t entry = 16 + static_cast<size_t>(i) * 28;
    std::string kind(reinterpret_cast<const char*>(&bytes[entry]));
    kind = kind.substr(0, 8);
    uint64_t offset = le(bytes, entry + 8, 8), size = le(bytes, entry + 16, 8);
    REQUIRE(size > 0);
    for (uint64_t at : {offset, offset + size / 2, offset + size - 1}) {
      auto bad = bytes;
      bad[static_cast<size_t>(at)] ^= 0x20;
      CHECK(parseError(bad) == "x.pef: chunk '" + kind + "': checksum mismatch");
    }
  }
}

TEST_CASE("PEF reader refuses bad magic and a newer major version", "[pef]") {
  auto bytes = sampleBytes();
  auto bad = bytes;
  bad[0] = 'X';
  CHECK(parseError(bad) == "x.pef: not a PEF file (bad magic)");
  bad = bytes;
  bad[4] = 2;
  bad[6] = 3;
  CHECK(parseError(bad) == "x.pef: made by a newer compiler (format 2.3); this dfc reads 1.x");
  bad = bytes;
  bad[6] = 9;  // a newer minor version is still readable
  CHECK(parseError(bad) == "<ok>");
  bad = bytes;
  bad[16 + 8 + 7] = 0xff;  // first chunk's offset far past the end
  CHECK(parseError(bad).rfind("x.pef: chunk 'meta': offset", 0) == 0);
  bad = bytes;
  bad[12] = 0xff;  // more chunks than the table holds
  bad.resize(16 + 28 * 8);  // cut the file so 255 entries cannot fit, however big the sample graph grows
  CHECK(parseError(bad).rfind("x.pef: chunk table", 0) == 0);
}

TEST_CASE("PEF reader names the chunk whose content is inconsistent", "[pef]") {
  std::string path = tempPath("bad.pef");
  pef::Pef p = samplePef();
  ir::ValueId w = p.graph.findValue("conv1.weight");
  p.graph.initializers[w] = ir::Tensor(ir::TensorType{ir::DType::F32, {3, 1, 3, 2}});
  REQUIRE(pef::writePef(p, path).ok());
  auto r = pef::readPef(path);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message() == path + ": chunk 'weights': weights for 'conv1.weight' have type f32[3,1,3,2], the graph says f32[3,1,3,3]");

  p = samplePef();
  p.plan.sections[1].nodes.push_back(999);
  REQUIRE(pef::writePef(p, path).ok());
  r = pef::readPef(path);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message().rfind(path + ": chunk 'sections': section #1 's1_part' refers to node #999", 0) == 0);

  p = samplePef();
  p.reportJson = "{\"unterminated\": ";
  REQUIRE(pef::writePef(p, path).ok());
  r = pef::readPef(path);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message().rfind(path + ": chunk 'report': bad JSON", 0) == 0);

  p = samplePef();
  p.graph.value(p.graph.findValue("logits")).type.shape = {2, 5};
  REQUIRE(pef::writePef(p, path).ok());
  r = pef::readPef(path);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message().rfind(path + ": chunk 'graph': node 'fc' (matmul): output '%logits' is stored as f32[2,5]", 0) == 0);

  auto missing = pef::readPef(tempPath("nope.pef"));
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message().find("nope.pef") != std::string::npos);
}

TEST_CASE("PEF reader survives random corruption", "[pef]") {
  auto bytes = sampleBytes();
  const pef::Pef original = samplePef();
  std::mt19937 rng(1234);
  int refused = 0;
  for (int i = 0; i < 300; ++i) {
    auto bad = bytes;
    // Corrupt the header and table, where checksums do not help.
    size_t at = rng() % (16 + 6 * 28);
    bad[at] = static_cast<uint8_t>(rng());
    INFO("byte " << at << " set to " << int(bad[at]));
    auto r = pef::parsePef(bad, "x.pef");
    if (!r) {
      ++refused;
      CHECK(r.error().message().rfind("x.pef: ", 0) == 0);
      continue;
    }
    // Accepted (a byte that does not matter: a newer minor version, flags, a
    // byte set to what it was): then it must read as the PEF that was written.
    CHECK(r->meta.pefName == original.meta.pefName);
    CHECK(ir::printGraph(r->graph) == ir::printGraph(original.graph));
    CHECK(graphDiff(original.graph, r->graph, true) == "");
    CHECK(planEqual(original.plan, r->plan));
    CHECK(r->reportJson == original.reportJson);
  }
  CHECK(refused > 200);  // most header and table bytes matter
}
