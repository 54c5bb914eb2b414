#pragma once
// Everything in a decoded PEF that the runtime and the tools index by or
// trust without checking again, checked once when the PEF is read:
//   plan: section ids 0..n-1, hypersections that list their instances, every
//         node in exactly one section of its own role, a schedule that calls
//         every section once, finite estimates;
//   meta: the values it names for the runtime (image, labels, learning rate,
//         loss, logits) exist with the kind, dtype and shape their role needs,
//         the batch size and default learning rate agree with the graph, and
//         "inference" agrees with the graph's state updates;
//   memory: the declared sizes fit the memory budget (checked before the
//         weights chunk allocates anything).
// Errors name the field, section or value at fault (the reader adds the file
// and chunk).
#include "ir/Graph.h"
#include "partition/Plan.h"
#include "pef/Pef.h"
#include "support/Error.h"

namespace dfc::pef {

Status validatePlan(const partition::Plan& plan, const ir::Graph& graph);  // sections and hypersections
Status validateSchedule(const partition::Plan& plan);                       // after validatePlan
Status validateMeta(const PefMeta& meta, const ir::Graph& graph, const partition::Plan& plan);

// The batch size a PEF records: the first dimension of its image input (an
// ONNX model may fix it whatever -b says), else `fallback`.
int64_t batchSizeOf(const ir::Graph& graph, const std::string& imageInput, int64_t fallback);

}  // namespace dfc::pef
