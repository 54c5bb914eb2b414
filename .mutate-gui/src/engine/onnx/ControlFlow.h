#pragma once
// If and Loop, mapped without control flow (the chip runs a static graph):
//   - If whose condition is constant after folding: the taken branch, inlined;
//   - If on a runtime condition: both branches computed, each output chosen by
//     Where, when the branches' outputs agree in element type and shape
//     (refused naming the output otherwise);
//   - Loop with a constant trip count (and a condition that stays constant):
//     the body unrolled, scan outputs stacked along a new first axis;
//   - Scan (opset 9 and later): unrolled over the scan axis of its inputs.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "onnx/ImportContext.h"

namespace dfc::onnx {

// Maps a subgraph's nodes as part of the graph: its inputs bound to `inputs`
// (in order), its node and value names under `prefix`; returns its outputs.
using MapBody = std::function<Expected<std::vector<ir::ValueId>>(const ::onnx::GraphProto& body, const std::string& prefix,
                                                                  const std::vector<ir::ValueId>& inputs)>;

constexpr int64_t kMaxUnrolledIterations = 1024;

Status mapIf(ImportContext& c, const MapBody& mapBody);
Status mapLoop(ImportContext& c, const MapBody& mapBody);
Status mapScan(ImportContext& c, const MapBody& mapBody);

}  // namespace dfc::onnx
