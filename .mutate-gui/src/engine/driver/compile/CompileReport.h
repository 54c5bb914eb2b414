#pragma once
// The compile report stored in the PEF (layers 1-3 of the stack tracing report).
#include <string>
#include <vector>

#include "arch/ArchSpec.h"
#include "driver/compile/DataParallelCompile.h"
#include "ir/Graph.h"
#include "kernelc/Linker.h"
#include "partition/Plan.h"

namespace dfc::driver {

std::string buildCompileReportJson(const ir::Graph& graph, const partition::Plan& plan, const arch::ArchSpec& arch,
                                   double compileMs,
                                   const std::vector<kernelc::SectionPlacement>* placement = nullptr,
                                   const DataParallelPlan* dataParallel = nullptr);

// A decode step's lines for `dfc inspect` (its "decode" report entry: cache
// length, KV cache bytes beside the weights'); empty for other PEFs.
std::vector<std::string> describeDecodeReport(const std::string& reportJson);

}  // namespace dfc::driver
