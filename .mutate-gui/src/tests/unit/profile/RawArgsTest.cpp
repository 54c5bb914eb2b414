// One value out of raw args JSON: keys, not values that look like keys;
// strings with escapes; numbers as written.
#include <catch2/catch.hpp>

#include "profile/RawArgs.h"

using dfc::profile::findRawArg;

TEST_CASE("findRawArg finds top-level keys, not values that spell a key", "[profile][rawargs]") {
  const auto hs = findRawArg(R"({"type":"hypersection", "hypersection" : "hs3_conv","section_id":12})", "hypersection");
  REQUIRE(hs);
  CHECK(hs->isString);
  CHECK(hs->text == "hs3_conv");
  const auto id = findRawArg(R"({"type":"hypersection", "hypersection" : "hs3_conv","section_id":12})", "section_id");
  REQUIRE(id);
  CHECK(!id->isString);
  CHECK(id->number() == 12.0);
  CHECK(!findRawArg(R"({"section_id_x":1})", "section_id"));
  CHECK(!findRawArg(R"({"a":"b"})", "section_id"));
  CHECK(!findRawArg("", "a"));
  CHECK(findRawArg(R"({"n":"7"})", "n")->number() == 7.0);  // numbers written as strings
  CHECK(!findRawArg(R"({"n":"seven"})", "n")->number());
}

TEST_CASE("findRawArg keeps escaped strings whole and unescapes on request", "[profile][rawargs]") {
  const auto name = findRawArg(R"({"hypersection":"hs0 \"fused\"","x":1})", "hypersection");
  REQUIRE(name);
  CHECK(name->text == R"(hs0 \"fused\")");
  CHECK(name->unescaped() == "hs0 \"fused\"");
  CHECK(findRawArg(R"({"k":"caf\u00e9"})", "k")->unescaped() == "caf\xc3\xa9");
}
