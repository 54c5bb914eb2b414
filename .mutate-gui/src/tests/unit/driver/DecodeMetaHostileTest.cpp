// Hostile decode fields in a PEF's meta: a kv_cache_len that is not a
// positive integer, or that disagrees with the KV caches in the graph, is
// refused by the reader, naming the field, before the runtime or the estimate
// take it as the caches' row count.
#include <catch2/catch.hpp>

#include <filesystem>

#include "pef/PefFormat.h"
#include "unit/driver/DecodeTestUtil.h"

using namespace dfc;

namespace {

// The decode step's meta JSON with kv_cache_len's value replaced by `value` (raw JSON).
std::string metaWithCacheLen(const pef::PefMeta& meta, const std::string& value) {
  std::string json = pef::detail::encodeMeta(meta);
  const std::string key = "\"kv_cache_len\":";
  const size_t at = json.find(key);
  REQUIRE(at != std::string::npos);
  const size_t begin = at + key.size(), end = json.find_first_of(",}", begin);
  return json.replace(begin, end - begin, value);
}

}  // namespace

TEST_CASE("a kv_cache_len that is not a positive integer is refused, not read as absent", "[decode][pef][hostile]") {
  pef::PefMeta meta;
  meta.kvCacheLen = 8;
  meta.positionInput = "position";
  pef::PefMeta back;
  REQUIRE(pef::detail::decodeMeta(metaWithCacheLen(meta, "8"), back).ok());  // the helper's own control
  CHECK(back.kvCacheLen == 8);
  for (const char* bad : {"0", "-5", "1.5", "\"8\"", "18446744073709551615", "null", "[8]"}) {
    pef::PefMeta out;
    auto st = pef::detail::decodeMeta(metaWithCacheLen(meta, bad), out);
    INFO(bad);
    REQUIRE_FALSE(st.ok());
    CHECK_THAT(st.error().message(), Catch::Contains("kv_cache_len") && Catch::Contains("a positive integer"));
  }
}

TEST_CASE("a kv_cache_len that disagrees with the graph's KV caches is refused when the PEF is read",
          "[decode][pef][hostile]") {
  test::ScratchDir dir("decode-meta-hostile");
  const pef::Pef good = test::compileDecoderPef(dir, "llama-tiny", 8, 0);
  for (int64_t bad : {int64_t{1} << 40, int64_t{7}, int64_t{9}}) {
    pef::Pef p = good;
    p.meta.kvCacheLen = bad;
    const std::string path = dir / ("bad-" + std::to_string(bad) + ".pef");
    REQUIRE(pef::writePef(p, path).ok());
    for (pef::PefUse use : {pef::PefUse::Run, pef::PefUse::View}) {
      auto read = pef::readPef(path, use);
      INFO(bad);
      REQUIRE_FALSE(read.ok());
      CHECK_THAT(read.error().message(), Catch::Contains("field 'kv_cache_len' is " + std::to_string(bad)) &&
                                             Catch::Contains("f32[1,") && Catch::Contains(",8,"));
    }
  }
  // 0 and negative lengths are not written (the field is absent): the caches then need it.
  pef::Pef p = good;
  p.meta.kvCacheLen = -3;
  const std::string path = dir / "negative.pef";
  REQUIRE(pef::writePef(p, path).ok());
  auto read = pef::readPef(path);
  REQUIRE_FALSE(read.ok());
  CHECK_THAT(read.error().message(), Catch::Contains("field 'kv_cache_len' is absent"));
}
