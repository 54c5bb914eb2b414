// The PEF reader: header, chunk table, checksums, meta/sections/schedule
// JSON, the graph text, weights, bitfiles and PefValidator. Inputs with bad
// checksums stop early, so the seeds are real PEFs and the mutations that
// matter keep checksums: libFuzzer finds those through the CRC comparisons
// it traces (and scripts/fuzz.sh seeds PEFs written by dfc itself).
#include "FuzzTargets.h"
#include "pef/Pef.h"

namespace dfc::fuzz {

void pefReader(const uint8_t* data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  (void)pef::parsePef(bytes, "fuzz.pef");
  (void)pef::parsePef(bytes, "fuzz.pef", pef::PefUse::View);  // no host-memory budget: must still not over-allocate
}

}  // namespace dfc::fuzz

DFC_FUZZ_ENTRY(pefReader)
