#include <catch2/catch.hpp>
#include <zlib.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

#include "frontend/Datasets.h"

using namespace dfc;
namespace fs = std::filesystem;

namespace {

std::vector<uint8_t> idx(uint32_t magic, std::vector<uint32_t> dims, const std::vector<uint8_t>& payload) {
  std::vector<uint8_t> out;
  auto put = [&](uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<uint8_t>(v >> s));
  };
  put(magic);
  for (uint32_t d : dims) put(d);
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

void writePlain(const fs::path& p, const std::vector<uint8_t>& bytes) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

void writeGz(const fs::path& p, const std::vector<uint8_t>& bytes) {
  gzFile f = gzopen(p.string().c_str(), "wb");
  REQUIRE(f != nullptr);
  gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(f);
}

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("dfc_idx_test_" + std::to_string(::getpid()) + "_" +
                                        std::to_string(reinterpret_cast<uintptr_t>(this)));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

// 3 images of 2x2 pixels, labels 0, 7, 9.
std::vector<uint8_t> pixels() { return {0, 255, 51, 102, 1, 2, 3, 4, 5, 6, 7, 8}; }

}  // namespace

TEST_CASE("IDX images and labels read from plain and gzip files alike") {
  TempDir dir;
  auto images = idx(0x803, {3, 2, 2}, pixels());
  auto labels = idx(0x801, {3}, {0, 7, 9});
  writePlain(dir.path / "img", images);
  writeGz(dir.path / "img.gz", images);
  writeGz(dir.path / "lab.gz", labels);
  for (const char* name : {"img", "img.gz"}) {
    INFO(name);
    auto t = frontend::readIdxImages((dir.path / name).string());
    REQUIRE(t.ok());
    CHECK(t->type() == ir::TensorType{ir::DType::F32, {3, 1, 2, 2}});
    auto d = t->span<float>();
    CHECK(d[0] == Approx(-1.0f));  // pixel 0
    CHECK(d[1] == Approx(1.0f));   // pixel 255
    CHECK(d[2] == Approx(-0.6f));  // 51/255 = 0.2 -> (0.2-0.5)/0.5
  }
  auto l = frontend::readIdxLabels((dir.path / "lab.gz").string());
  REQUIRE(l.ok());
  CHECK(l->type() == ir::TensorType{ir::DType::I64, {3}});
  CHECK(std::vector<int64_t>(l->span<int64_t>().begin(), l->span<int64_t>().end()) == std::vector<int64_t>{0, 7, 9});
}

TEST_CASE("corrupt IDX files are rejected with the file named") {
  TempDir dir;
  auto images = idx(0x803, {3, 2, 2}, pixels());
  SECTION("truncated data") {
    auto cut = images;
    cut.resize(cut.size() - 3);
    fs::path p = dir.path / "short.gz";
    writeGz(p, cut);
    auto t = frontend::readIdxImages(p.string());
    REQUIRE_FALSE(t.ok());
    CHECK_THAT(t.error().message(), Catch::Contains(p.string()) && Catch::Contains("truncated"));
  }
  SECTION("truncated header") {
    fs::path p = dir.path / "hdr";
    writePlain(p, {0, 0, 8, 3, 0, 0});
    auto t = frontend::readIdxImages(p.string());
    REQUIRE_FALSE(t.ok());
    CHECK_THAT(t.error().message(), Catch::Contains(p.string()) && Catch::Contains("truncated"));
  }
  SECTION("labels file given as images: bad magic") {
    fs::path p = dir.path / "labels";
    writePlain(p, idx(0x801, {3}, {1, 2, 3}));
    auto t = frontend::readIdxImages(p.string());
    REQUIRE_FALSE(t.ok());
    CHECK_THAT(t.error().message(), Catch::Contains(p.string()) && Catch::Contains("magic"));
  }
  SECTION("missing file") {
    auto t = frontend::readIdxLabels((dir.path / "nope").string());
    REQUIRE_FALSE(t.ok());
    CHECK_THAT(t.error().message(), Catch::Contains("nope"));
  }
}

TEST_CASE("loadMnistLike finds .gz or plain files, honours the limit and checks counts") {
  TempDir dir;
  writeGz(dir.path / "t10k-images-idx3-ubyte.gz", idx(0x803, {3, 2, 2}, pixels()));
  writePlain(dir.path / "t10k-labels-idx1-ubyte", idx(0x801, {3}, {4, 5, 6}));
  auto ds = frontend::loadMnistLike(dir.path.string(), false);
  REQUIRE(ds.ok());
  CHECK(ds->size() == 3);
  auto two = frontend::loadMnistLike(dir.path.string(), false, 2);
  REQUIRE(two.ok());
  CHECK(two->size() == 2);
  CHECK(two->images.shape() == ir::Shape{2, 1, 2, 2});

  auto train = frontend::loadMnistLike(dir.path.string(), true);
  REQUIRE_FALSE(train.ok());
  CHECK_THAT(train.error().message(), Catch::Contains("train-images-idx3-ubyte"));

  writePlain(dir.path / "t10k-labels-idx1-ubyte", idx(0x801, {2}, {4, 5}));
  auto mismatch = frontend::loadMnistLike(dir.path.string(), false);
  REQUIRE_FALSE(mismatch.ok());
  CHECK_THAT(mismatch.error().message(), Catch::Contains("3 images") && Catch::Contains("2 labels"));
}

TEST_CASE("the installed Fashion-MNIST test set loads: 10000 images, labels 0..9") {
  // scripts/install-deps.sh installs it (Debian package dataset-fashion-mnist); a
  // machine without it fails here rather than passing without checking anything.
  const std::string folder = "/usr/share/datasets/fashion-mnist";
  INFO("Fashion-MNIST missing: install the Debian package dataset-fashion-mnist (scripts/install-deps.sh)");
  REQUIRE(fs::exists(folder));
  auto ds = frontend::loadMnistLike(folder, false);
  REQUIRE(ds.ok());
  CHECK(ds->size() == 10000);
  CHECK(ds->images.shape() == ir::Shape{10000, 1, 28, 28});
  std::vector<int> counts(10, 0);
  bool inRange = true;
  for (int64_t l : ds->labels.span<int64_t>()) {
    inRange = inRange && l >= 0 && l <= 9;
    if (inRange) ++counts[static_cast<size_t>(l)];
  }
  REQUIRE(inRange);
  for (int c : counts) CHECK(c == 1000);  // the test set is balanced
  auto px = ds->images.span<float>();
  auto [lo, hi] = std::minmax_element(px.begin(), px.end());
  CHECK(*lo == Approx(-1.0f));
  CHECK(*hi == Approx(1.0f));
}
