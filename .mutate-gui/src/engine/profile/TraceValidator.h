#pragma once
// Checks a chrome tracing JSON text against the rules Perfetto and
// chrome://tracing rely on. Used by tests on real run output, so it is strict:
// the error names the event index and the rule broken.
#include <string>

#include "support/Error.h"

namespace dfc::profile {

// Rules: top-level object with a "traceEvents" array; every event an object
// with numeric pid, tid, ts and a string ph; X events have a numeric dur >= 0;
// M process_name/thread_name carry a string args.name, thread_sort_index a
// numeric args.sort_index; on each (pid, tid) the X slices nest (no partial
// overlap).
Status validateChromeTraceJson(const std::string& json);

}  // namespace dfc::profile
