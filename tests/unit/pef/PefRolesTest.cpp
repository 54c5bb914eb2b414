// Sections keep their role through the PEF, by name, for every role in the
// table; a role name this dfc does not know is refused, naming the section.
#include <catch2/catch.hpp>

#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "ir/Role.h"
#include "pef/Pef.h"
#include "unit/ir/SampleGraph.h"

using namespace dfc;

namespace {

// One section per role, over the sample graph's first nodes.
pef::Pef pefWithEveryRole() {
  pef::Pef p;
  p.meta.pefName = "roles";
  p.meta.model = "roles";
  p.meta.optLevel = "o0";
  p.meta.arch = "sn30";
  p.meta.imageInput = "data/x_0";
  p.meta.logitsOutput = "logits";
  p.graph = ir::test::sampleGraph();
  p.plan.level = partition::OptLevel::O0;
  for (const ir::RoleInfo& r : ir::roles()) {
    int id = static_cast<int>(p.plan.sections.size());
    partition::Section s;
    s.id = id;
    s.name = "s" + std::to_string(id) + "_" + std::string(r.name);
    s.type = r.role;
    s.nodes = {id};
    s.hypersection = id;
    p.plan.sections.push_back(s);
    p.plan.hypersections.push_back({id, "hs" + std::to_string(id), {id}});
    p.plan.schedule.push_back(id);
  }
  p.reportJson = "{}";
  return p;
}

std::string scratchPef() {
  auto dir = std::filesystem::temp_directory_path() / ("dfc_pef_roles_" + std::to_string(std::random_device{}()));
  std::filesystem::create_directories(dir);
  return (dir / "roles.pef").string();
}

uint64_t le(const std::string& b, size_t at, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= uint64_t{static_cast<unsigned char>(b[at + static_cast<size_t>(i)])} << (8 * i);
  return v;
}

// Renames role `from` to `to` (same length) in the sections chunk and fixes its checksum.
std::vector<uint8_t> withRoleRenamed(std::string bytes, const std::string& from, const std::string& to) {
  REQUIRE(from.size() == to.size());
  uint64_t count = le(bytes, 12, 4);
  for (uint64_t i = 0; i < count; ++i) {
    size_t entry = 16 + static_cast<size_t>(i) * 28;
    if (std::string(bytes.data() + entry) != "sections") continue;
    size_t offset = le(bytes, entry + 8, 8), size = le(bytes, entry + 16, 8);
    std::string chunk = bytes.substr(offset, size);
    size_t at = chunk.find("\"type\":\"" + from + "\"");
    REQUIRE(at != std::string::npos);
    chunk.replace(at + 8, from.size(), to);
    bytes.replace(offset, size, chunk);
    uint32_t crc = static_cast<uint32_t>(crc32_z(0, reinterpret_cast<const Bytef*>(chunk.data()), chunk.size()));
    for (int k = 0; k < 4; ++k) bytes[entry + 24 + static_cast<size_t>(k)] = static_cast<char>((crc >> (8 * k)) & 0xff);
  }
  return {bytes.begin(), bytes.end()};
}

}  // namespace

TEST_CASE("every role survives a PEF write and read", "[pef][roles]") {
  const std::string path = scratchPef();
  REQUIRE(pef::writePef(pefWithEveryRole(), path).ok());
  auto back = pef::readPef(path);
  REQUIRE(back.ok());
  REQUIRE(back->plan.sections.size() == ir::kNumRoles);
  for (const ir::RoleInfo& r : ir::roles())
    CHECK(back->plan.sections[ir::roleIndex(r.role)].type == r.role);
  std::filesystem::remove_all(std::filesystem::path(path).parent_path());
}

TEST_CASE("a PEF section with a role this dfc does not know is refused, naming the section", "[pef][roles]") {
  const std::string path = scratchPef();
  REQUIRE(pef::writePef(pefWithEveryRole(), path).ok());
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove_all(std::filesystem::path(path).parent_path());
  auto refused = pef::parsePef(withRoleRenamed(bytes, "backward", "sideways"), "roles.pef");
  REQUIRE(!refused);
  const std::string& message = refused.error().message();
  INFO(message);
  CHECK(message.find("roles.pef") != std::string::npos);
  CHECK(message.find("section 's1_backward'") != std::string::npos);
  CHECK(message.find("unknown role 'sideways'") != std::string::npos);
}
