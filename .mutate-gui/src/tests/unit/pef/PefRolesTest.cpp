// Sections keep their role through the PEF, by name, for every role in the
// table; a role name this dfc does not know is refused, naming the section.
#include <catch2/catch.hpp>

#include <zlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "ir/Role.h"
#include "pef/Pef.h"
#include "unit/ir/SampleGraph.h"
#include "unit/pef/SamplePef.h"

using namespace dfc;

namespace {

// The valid sample PEF (unit/pef/SamplePef.h): its graph has nodes of every
// role, so it has sections of every role; each is named after its role.
pef::Pef pefWithEveryRole() {
  pef::Pef p = pef::test::samplePef();
  for (partition::Section& s : p.plan.sections) s.name = "s" + std::to_string(s.id) + "_" + std::string(ir::roleName(s.type));
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
  bool renamed = false;
  uint64_t count = le(bytes, 12, 4);
  for (uint64_t i = 0; i < count; ++i) {
    size_t entry = 16 + static_cast<size_t>(i) * 28;
    if (std::string(bytes.data() + entry, strnlen(bytes.data() + entry, 8)) != "sections") continue;  // kind[8], no NUL when full
    size_t offset = le(bytes, entry + 8, 8), size = le(bytes, entry + 16, 8);
    std::string chunk = bytes.substr(offset, size);
    size_t at = chunk.find("\"type\":\"" + from + "\"");
    REQUIRE(at != std::string::npos);
    chunk.replace(at + 8, from.size(), to);
    bytes.replace(offset, size, chunk);
    uint32_t crc = static_cast<uint32_t>(crc32_z(0, reinterpret_cast<const Bytef*>(chunk.data()), chunk.size()));
    for (int k = 0; k < 4; ++k) bytes[entry + 24 + static_cast<size_t>(k)] = static_cast<char>((crc >> (8 * k)) & 0xff);
    renamed = true;
  }
  REQUIRE(renamed);
  return {bytes.begin(), bytes.end()};
}

}  // namespace

TEST_CASE("every role survives a PEF write and read", "[pef][roles]") {
  const std::string path = scratchPef();
  REQUIRE(pef::writePef(pefWithEveryRole(), path).ok());
  auto back = pef::readPef(path);
  REQUIRE(back.ok());
  const pef::Pef written = pefWithEveryRole();
  REQUIRE(back->plan.sections.size() == written.plan.sections.size());
  for (const ir::RoleInfo& r : ir::roles()) {
    size_t count = 0;
    for (size_t i = 0; i < written.plan.sections.size(); ++i)
      if (written.plan.sections[i].type == r.role) {
        ++count;
        CHECK(back->plan.sections[i].type == r.role);
      }
    CHECK(count > 0);  // every role is there to survive
  }
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
  CHECK(message.find("_backward'") != std::string::npos);
  CHECK(message.find("unknown role 'sideways'") != std::string::npos);
}
