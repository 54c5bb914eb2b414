// Golden pass tests: every tests/golden/<pass>/*.dfir holds input IR, a line
// "// PASS: <name>", then "// EXPECT:" and the exact IR the pass must print.
// See README.md in this folder.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "ir/Parser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "passes/Pass.h"

namespace fs = std::filesystem;
using namespace dfc;

namespace {

// From the build definition, not __FILE__: ccache with base_dir makes __FILE__ relative.
fs::path goldenDir() { return fs::path(DFC_TEST_DATA_DIR).parent_path() / "golden"; }

std::string readText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The first differing line of two texts, for a readable failure.
std::string firstDifference(const std::string& want, const std::string& got) {
  std::istringstream a(want), b(got);
  std::string la, lb;
  for (int line = 1;; ++line) {
    bool ha = static_cast<bool>(std::getline(a, la)), hb = static_cast<bool>(std::getline(b, lb));
    if (!ha && !hb) return "";
    if (!ha || !hb || la != lb)
      return "first difference at expected line " + std::to_string(line) + ":\n- " + (ha ? la : "<end>") + "\n+ " +
             (hb ? lb : "<end>") + "\n--- whole output ---\n" + got;
  }
}

struct Case {
  std::string input, pass, expect;
};

Case splitCase(const std::string& text) {
  Case c;
  std::istringstream in(text);
  std::string line;
  enum { Input, Between, Expect } where = Input;
  while (std::getline(in, line)) {
    if (line.rfind("// PASS:", 0) == 0) {
      c.pass = line.substr(8);
      c.pass.erase(0, c.pass.find_first_not_of(' '));
      where = Between;
    } else if (line.rfind("// EXPECT:", 0) == 0) {
      where = Expect;
    } else if (where == Input) {
      c.input += line + '\n';
    } else if (where == Expect && line.rfind("//", 0) != 0) {
      c.expect += line + '\n';
    }
  }
  return c;
}

}  // namespace

TEST_CASE("every pass output matches its golden IR", "[golden][passes]") {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(goldenDir()))
    if (e.path().extension() == ".dfir") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 12);
  std::set<std::string> covered;
  for (const fs::path& file : files) {
    DYNAMIC_SECTION(file.parent_path().filename().string() << "/" << file.filename().string()) {
      Case c = splitCase(readText(file));
      REQUIRE_FALSE(c.pass.empty());
      CHECK(c.pass == file.parent_path().filename().string());  // a file lives under its pass's folder
      covered.insert(c.pass);
      auto graph = ir::parseGraph(c.input, file.string());
      INFO((graph ? "" : graph.error().message()));
      REQUIRE(graph.ok());
      REQUIRE(ir::verifyGraph(*graph, {.requireWeights = false}).ok());
      auto pass = passes::createPass(c.pass);
      REQUIRE(pass.ok());
      auto changed = (*pass)->run(*graph);
      INFO((changed ? "" : changed.error().message()));
      REQUIRE(changed.ok());
      auto st = ir::verifyGraph(*graph, {.requireWeights = false});
      INFO((st ? "" : st.error().message()));
      CHECK(st.ok());
      std::string got = ir::printGraph(*graph);
      if (std::getenv("DFC_GOLDEN_UPDATE")) {  // regenerate: review the diff before committing
        std::string text = readText(file);
        std::ofstream(file, std::ios::binary) << text.substr(0, text.find("// EXPECT:")) << "// EXPECT:\n" << got;
        c.expect = got;
      }
      std::string diff = firstDifference(c.expect, got);
      INFO(file.string() << ": " << diff);
      CHECK(diff.empty());
      // A case whose expected output equals its input is a "must not fire" case.
      CHECK(*changed == (c.expect != ir::printGraph(*ir::parseGraph(c.input, file.string()))));
    }
  }
}

TEST_CASE("every registered pass has at least two golden files", "[golden][passes]") {
  for (const auto& info : passes::registeredPasses()) {
    fs::path dir = goldenDir() / std::string(info.name);
    int n = 0;
    if (fs::is_directory(dir))
      for (const auto& e : fs::directory_iterator(dir)) n += e.path().extension() == ".dfir";
    INFO(info.name);
    CHECK(n >= 2);
  }
}
