// Optional meta fields (issue 36): absent means the default, but present with
// the wrong type is refused naming the field, never read as absent.
#include <catch2/catch.hpp>

#include "pef/PefFormat.h"

using namespace dfc;

namespace {

// The meta JSON with `key`'s value replaced by (or, absent, added as) `value`, raw JSON.
std::string metaWith(const std::string& key, const std::string& value) {
  pef::PefMeta meta;
  meta.defaultLr = 0.1;
  std::string json = pef::detail::encodeMeta(meta);
  const std::string quoted = "\"" + key + "\":";
  if (const size_t at = json.find(quoted); at != std::string::npos) {
    const size_t begin = at + quoted.size(), end = json.find_first_of(",}", begin);
    return json.replace(begin, end - begin, value);
  }
  return json.insert(json.rfind('}'), "," + quoted + value);
}

std::string decodeError(const std::string& json) {
  pef::PefMeta out;
  auto st = pef::detail::decodeMeta(json, out);
  return st.ok() ? "<ok>" : st.error().message();
}

}  // namespace

TEST_CASE("an optional meta field of the wrong type is refused, not taken as absent", "[pef][hostile]") {
  for (const auto& [key, value] : {std::pair{"world_size", "\"2\""}, {"world_size", "2.5"}, {"task", "5"},
                                   {"compiler_config", "{}"}, {"decisions", "7"}, {"spatial_tiling", "[1]"}}) {
    INFO(key << " = " << value);
    CHECK_THAT(decodeError(metaWith(key, value)), Catch::StartsWith(std::string("field '") + key + "'"));
  }
  // Boundaries of world_size: 2 and 4096 are data parallel sizes, 1 and 4097 are not.
  CHECK(decodeError(metaWith("world_size", "2")) == "<ok>");
  CHECK(decodeError(metaWith("world_size", "4096")) == "<ok>");
  CHECK_THAT(decodeError(metaWith("world_size", "1")), Catch::Contains("2..4096"));
  CHECK_THAT(decodeError(metaWith("world_size", "4097")), Catch::Contains("2..4096"));
  pef::PefMeta out;
  REQUIRE(pef::detail::decodeMeta(metaWith("task", "\"language_model\""), out).ok());
  CHECK(out.task == "language_model");
  REQUIRE(pef::detail::decodeMeta(pef::detail::encodeMeta(pef::PefMeta{}), out).ok());  // all absent: defaults
  CHECK(out.task == "classification");
  CHECK(out.worldSize == 0);
}

TEST_CASE("the model's own input and output names round-trip through the meta, absent when empty", "[pef]") {
  pef::PefMeta meta;
  CHECK(pef::detail::encodeMeta(meta).find("input_names") == std::string::npos);
  meta.inputNames = {"images:0", "mask"};
  meta.outputNames = {"/head/Conv_output_0"};
  pef::PefMeta out;
  REQUIRE(pef::detail::decodeMeta(pef::detail::encodeMeta(meta), out).ok());
  CHECK(out.inputNames == meta.inputNames);
  CHECK(out.outputNames == meta.outputNames);
  for (const char* key : {"input_names", "output_names"}) {
    INFO(key);
    CHECK_THAT(decodeError(metaWith(key, "\"x\"")), Catch::StartsWith(std::string("field '") + key + "'"));
    CHECK_THAT(decodeError(metaWith(key, "[1]")), Catch::StartsWith(std::string("field '") + key + "'"));
  }
}
