#pragma once
// Tensors kept channels-last (NHWC, the layout oneDNN's convolutions pick) between convolutions.
// A convolution on oneDNN's primitive reorders its NCHW input to that layout
// and its output back on every call; where a tensor only ever passes from one
// such convolution to others (a ResNet's chain of fused conv + bias + relu,
// and its residual adds, which the next conv's epilogue takes), both reorders
// are copies of the same bytes, and the plan drops them. -o0 keeps each op a
// kernel of its own (a conv's output feeds a bias_add), so no tensor there
// qualifies: this is part of what fusion buys.
#include <vector>

#include "ir/Graph.h"
#include "runtime/Kernel.h"

namespace dfc::runtime {

// A convolution kernel and the values it reads and writes: x its input, skip
// its residual (kNoValue: none), y its output after its epilogue. tied: x
// and y are held both or neither (a max pool between convolutions).
struct ConvTensors {
  Kernel* kernel = nullptr;
  ir::ValueId x = ir::kNoValue, skip = ir::kNoValue, y = ir::kNoValue;
  bool tied = false;
};

// Tells each kernel of `convs` which of its tensors to hold blocked, and
// returns how many values are held so. A value is, when a convolution that
// canHoldBlocked(request, threads) writes it, every node that reads it is
// such a convolution reading it as its x or its skip, and it does not leave
// the step (`leavesStep`: graph outputs and state-update sources). A tied
// kernel (a max pool) holds x and y both or neither: one that could hold
// only one side holds none, and the plan looks again at the values it touched.
// Of those, a value whose every kernel prefersBlocked16 (oneDNN's Winograd
// on whole 16-channel blocks) is held nChw16c instead (holdBlocked16);
// `held16Count` gets how many.
int planBlockedLayouts(const std::vector<ConvTensors>& convs, const std::vector<std::vector<ir::NodeId>>& users,
                       const std::vector<bool>& leavesStep, ConvAlgoRequest request, int threads,
                       int* held16Count = nullptr);

}  // namespace dfc::runtime
