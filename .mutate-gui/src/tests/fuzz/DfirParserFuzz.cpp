// The .dfir model reader: lexer, parser, declared sizes, the verifier (shape
// inference of every op) and, for graphs that pass, a print/parse round trip.
#include "FuzzTargets.h"
#include "ir/DfirFile.h"
#include "ir/Parser.h"
#include "ir/Printer.h"

namespace dfc::fuzz {

void dfirParser(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto g = ir::parseDfirModel(text, "fuzz.dfir");
  if (!g) return;
  (void)ir::parseGraph(ir::printGraph(*g), "printed.dfir");
}

}  // namespace dfc::fuzz

DFC_FUZZ_ENTRY(dfirParser)
