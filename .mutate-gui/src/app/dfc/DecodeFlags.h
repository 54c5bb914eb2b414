#pragma once
// The flags of `dfc run --decode` (driver/run/DecodeRun.h): the prompt, how many
// tokens to generate and how to pick them.
#include "ArgParser.h"
#include "driver/run/Runner.h"

namespace dfc::cli {

void addDecodeRunFlags(ArgParser& p);
// Reads them into `o`; a decode flag without --decode is an error naming it.
Status decodeOptionsFrom(const ArgParser& p, driver::RunOptions& o);
// What a decode run prints after its tokens.
void printDecodeSummary(const driver::RunResult& r);

}  // namespace dfc::cli
