#pragma once
// `dfc run --inference --input ...`: the stages of driver::run that a run on
// given inputs goes through instead of a data set (driver/RunInputs.h).
// Private to driver/.
#include "support/Error.h"

namespace dfc::driver {

struct RunState;

// load-data: every graph input bound and checked, and --output-dir's targets
// checked, before the run store is opened (a refused run is not recorded).
Status prepareGivenInputs(RunState& s);
// evaluate: one forward step, traced and recorded; each output summarized in
// the log and written with --output-dir.
Status runGivenInputs(RunState& s);

}  // namespace dfc::driver
