#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "support/NameSet.h"

using dfc::support::NameSet;
using dfc::support::StringSet;

TEST_CASE("name set finds a repeated name among many with a shared prefix", "[support][names]") {
  std::vector<std::string> names;
  for (int i = 0; i < 5000; ++i) names.push_back("h." + std::to_string(i) + "/attn/matmul.out");
  NameSet set(10);  // far fewer than inserted: the table grows
  for (const auto& n : names) CHECK(set.insert(n));
  std::string again = "h.4321/attn/matmul.out";
  CHECK_FALSE(set.insert(again));
  CHECK(set.contains("h.0/attn/matmul.out"));
  CHECK_FALSE(set.contains("h.5000/attn/matmul.out"));
  CHECK(set.insert(""));
  CHECK_FALSE(set.insert(""));
}

TEST_CASE("string set keeps its own copies and forgets erased names", "[support][names]") {
  StringSet set;
  {
    std::string temp(100, 'x');  // longer than a small-string buffer
    CHECK(set.insert(temp));
  }
  CHECK(set.contains(std::string(100, 'x')));
  for (int i = 0; i < 20000; ++i) CHECK(set.insert("relu_" + std::to_string(i)));
  CHECK_FALSE(set.insert("relu_19999"));
  set.erase("relu_7");
  CHECK_FALSE(set.contains("relu_7"));
  CHECK(set.contains("relu_8"));
  CHECK(set.insert("relu_7"));
  CHECK(set.contains("relu_7"));
}
