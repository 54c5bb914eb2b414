#pragma once
// Convolutions that join a chain of convolutions on oneDNN. Auto runs a 1x1
// conv on a GEMM or the pointwise kernel and a 3x3 with tiles enough on
// Winograd, which read and write NCHW; one between convolutions on oneDNN (a
// ResNet-50 bottleneck's 1x1s around its 3x3) would make each of them
// reorder the tensors it shares with it. Such a conv runs on oneDNN instead,
// and the tensors between them stay channels-last
// (BlockedLayouts.h). Planned on the graph and the step's fusion groups
// (StepFusion.h), so the executor, `dfc inspect` and the trace agree.
#include <set>
#include <vector>

#include "partition/Plan.h"
#include "runtime/ConvAlgo.h"
#include "runtime/SectionFusion.h"

namespace dfc::runtime {

// The joins for the executor's own fusion groups (one list per section);
// `users` is graph.computeUsers(), `leavesStep[v]` marks graph outputs and
// state-update sources. A conv joins when its request is auto, it is a
// forward conv2d with stable weights that auto runs elsewhere than oneDNN
// (but not a Winograd one over at least 128 channels, which keeps Winograd),
// and it is linked to a convolution auto runs on oneDNN
// through values that could be held: written by one of these convolutions
// (after its fused bias, residual add and activation), read only by such
// convolutions (as input or residual) and not leaving the step.
std::set<ir::NodeId> planOneDnnJoins(const ir::Graph& graph, const std::vector<std::vector<FusionGroup>>& groups,
                                     const std::vector<std::vector<ir::NodeId>>& users,
                                     const std::vector<bool>& leavesStep, ConvAlgoRequest request);

// The same, planning the step's fusion as the executor does (for reports).
std::set<ir::NodeId> planOneDnnJoins(const ir::Graph& graph, const partition::Plan& plan, ConvAlgoRequest request);

}  // namespace dfc::runtime
