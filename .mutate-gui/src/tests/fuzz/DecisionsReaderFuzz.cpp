// The --mac-human-decision reader (YAML through yaml-cpp), the writer it must
// read back, the glob matcher, and the PEF meta record dfc inspect describes.
#include <cstdlib>
#include <string>

#include "FuzzTargets.h"
#include "driver/compile/HumanDecisions.h"
#include "mapping/Decisions.h"

namespace dfc::fuzz {

void decisionsReader(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)driver::describeDecisions(text);  // the meta record: JSON from a PEF someone else wrote
  auto file = mapping::parseDecisions(text, "fuzz.yaml");
  if (!file) return;
  // What dfstudio writes must read back: a decision lost or changed is a bug.
  auto written = mapping::formatDecisions(*file, text.substr(0, 64));
  if (!written) std::abort();  // the reader accepted every pattern, so the writer must write them
  auto back = mapping::parseDecisions(*written, "fuzz.yaml");
  if (!back || back->decisions.size() != file->decisions.size()) std::abort();
  for (size_t i = 0; i < file->decisions.size(); ++i) {
    const mapping::Decision& d = file->decisions[i];
    const mapping::Decision& e = back->decisions[i];
    if (d.kind != e.kind || d.patterns != e.patterns || d.chip != e.chip || d.role != e.role) std::abort();
    for (const std::string& p : d.patterns) (void)mapping::globMatch(p, text);
  }
}

}  // namespace dfc::fuzz

DFC_FUZZ_ENTRY(decisionsReader)
