// Readers take regular files only, writers replace regular files only, and
// paths a model names stay inside its folder.
#include <catch2/catch.hpp>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "common/FileIdentity.h"
#include "support/FileUtil.h"
#include "support/SafePath.h"
#include "support/SizeBudget.h"

using namespace dfc;
namespace fs = std::filesystem;

namespace {

struct Scratch {
  fs::path dir;
  Scratch() {
    dir = fs::temp_directory_path() / ("dfc-safepath-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string file(const std::string& name, const std::string& text) const {
    fs::path p = dir / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
  std::string operator/(const std::string& name) const { return (dir / name).string(); }
};


}  // namespace

TEST_CASE("readFile refuses a FIFO, a directory and /dev/zero without blocking", "[support][safepath]") {
  Scratch s;
  std::string fifo = s / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto r = support::readFile(fifo);  // would block forever on open() without O_NONBLOCK
  REQUIRE_FALSE(r);
  CHECK(r.error().message() == fifo + ": is a FIFO, not a regular file");
  r = support::readFile(s.dir.string());
  REQUIRE_FALSE(r);
  CHECK(r.error().message().find("a directory") != std::string::npos);
  r = support::readFile("/dev/zero");
  REQUIRE_FALSE(r);
  CHECK(r.error().message().find("a character device") != std::string::npos);
  std::string link = s / "zero.dfir";
  fs::create_symlink("/dev/zero", link);
  r = support::readFile(link);
  REQUIRE_FALSE(r);
  CHECK(r.error().message().find("zero.dfir") != std::string::npos);
  CHECK(support::readFile(s.file("ok.txt", "hello")).value() == "hello");
}

TEST_CASE("readRegularFile caps the size it accepts", "[support][safepath]") {
  Scratch s;
  std::string p = s.file("big.txt", std::string(4096, 'x'));
  auto r = support::readRegularFile(p, 1000);
  REQUIRE_FALSE(r);
  CHECK(r.error().message().find("big.txt: 4.0 KiB is more than the 1000 B") != std::string::npos);
  CHECK(support::readRegularFile(p, 4096).value().size() == 4096);
  CHECK_FALSE(support::checkRegularFile(p, 100));
  CHECK(support::checkRegularFile(p, 0));
}

TEST_CASE("resolveInside keeps data paths in the model's folder", "[support][safepath]") {
  Scratch s;
  s.file("model/weights.bin", "w");
  s.file("model/sub/more.bin", "m");
  s.file("secret.txt", "s");
  std::string folder = s / "model";
  CHECK(support::resolveInside(folder, "weights.bin", "external data").value() == fs::canonical(s / "model/weights.bin"));
  CHECK(support::resolveInside(folder, "sub/more.bin", "external data"));
  for (const char* bad : {"../secret.txt", "sub/../../secret.txt", "/etc/passwd", "../../../../../../etc/passwd"}) {
    auto r = support::resolveInside(folder, bad, "external data");
    INFO(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().message().find(bad) != std::string::npos);
  }
  fs::create_symlink(s / "secret.txt", s / "model/link.bin");
  auto r = support::resolveInside(folder, "link.bin", "external data");
  REQUIRE_FALSE(r);
  CHECK(r.error().message().find("outside the model's folder") != std::string::npos);
  fs::create_symlink(s / "model/weights.bin", s / "model/inner.bin");  // a link that stays inside is fine
  CHECK(support::resolveInside(folder, "inner.bin", "external data"));
}

TEST_CASE("writeFileAtomic replaces regular files only and leaves others untouched", "[support][safepath]") {
  Scratch s;
  std::string fifo = s / "fifo", folder = s / "folder";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  fs::create_directories(folder);
  for (const std::string& target : {fifo, folder}) {
    test::FileIdentity before = test::fileIdentity(target);
    auto st = support::writeFileAtomic(target, "data");
    INFO(target);
    REQUIRE_FALSE(st);
    CHECK(st.error().message().find(target + ": is a") != std::string::npos);
    CHECK(test::fileIdentity(target) == before);
  }
  if (::geteuid() == 0) {  // a copy of /dev/null: what `--trace /dev/null` used to replace
    std::string null = s / "null";
    REQUIRE(::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0);
    test::FileIdentity before = test::fileIdentity(null);
    auto st = support::writeFileAtomic(null, "data");
    REQUIRE_FALSE(st);
    CHECK(st.error().message().find("a character device") != std::string::npos);
    CHECK(test::fileIdentity(null) == before);
  }
  std::string plain = s.file("plain.json", "old");
  REQUIRE(support::writeFileAtomic(plain, "new"));
  CHECK(support::readFile(plain).value() == "new");
  for (const auto& e : fs::directory_iterator(s.dir))  // no temp file left behind
    CHECK(e.path().filename().string().find(".tmp-") == std::string::npos);
}

TEST_CASE("writeFileAtomic writes through a symlink only within its folder", "[support][safepath]") {
  Scratch s;
  std::string inside = s.file("out/real.json", "old"), outside = s.file("elsewhere.json", "keep");
  fs::create_symlink(inside, s / "out/link.json");
  fs::create_symlink(outside, s / "out/escape.json");
  REQUIRE(support::writeFileAtomic(s / "out/link.json", "new"));
  CHECK(fs::is_symlink(s / "out/link.json"));
  CHECK(support::readFile(inside).value() == "new");
  auto st = support::writeFileAtomic(s / "out/escape.json", "evil");
  REQUIRE_FALSE(st);
  CHECK(st.error().message().find("symlink out of its folder") != std::string::npos);
  CHECK(support::readFile(outside).value() == "keep");
  fs::create_symlink("/nonexistent/x", s / "out/dangling.json");
  st = support::writeFileAtomic(s / "out/dangling.json", "data");
  REQUIRE_FALSE(st);
  CHECK(st.error().message().find("a symlink to a missing file") != std::string::npos);
  CHECK(fs::is_symlink(s / "out/dangling.json"));
}

TEST_CASE("sizes: parsing, formatting, overflow-checked arithmetic and the budget", "[support][budget]") {
  CHECK(support::parseByteSize("--max-memory", "512M").value() == 512ull << 20);
  CHECK(support::parseByteSize("--max-memory", "16G").value() == 16ull << 30);
  CHECK(support::parseByteSize("--max-memory", "1.5GiB").value() == 3ull << 29);
  CHECK(support::parseByteSize("--max-memory", "4096").value() == 4096);
  for (const char* bad : {"", "-1G", "0", "12Q", "G", "nan", "1e30"}) {
    INFO(bad);
    CHECK_FALSE(support::parseByteSize("--max-memory", bad));
  }
  CHECK(support::formatBytes(812) == "812 B");
  CHECK(support::formatBytes(256ull << 30) == "256.0 GiB");
  CHECK(support::checkedMul(1ull << 31, 1ull << 31).value() == 1ull << 62);
  CHECK_FALSE(support::checkedMul(1ull << 32, 1ull << 31));
  CHECK_FALSE(support::checkedAdd(1ull << 62, 1));
  CHECK(support::machineMemoryBytes() > (64ull << 20));
  support::setMemoryBudget(1 << 20);
  auto st = support::checkBudget("tensor 'w' f32[1024,1024]", 4 << 20);
  support::setMemoryBudget(0);
  REQUIRE_FALSE(st);
  CHECK(st.error().message() ==
        "tensor 'w' f32[1024,1024] needs 4.0 MiB, more than the memory budget of 1.0 MiB (--max-memory to change it)");
  CHECK(support::checkBudget("small", 4 << 20));
}
