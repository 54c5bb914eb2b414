#pragma once
// Which chip each kernel of a graph that spans several chips is placed on.
// Chips are separate meshes joined by modelled links (kernelc/Router.h), so
// the placer keeps each kernel on its chip and anneals within it: each chip's
// routing is then a problem of one chip's size. The partition keeps each math
// op's kernels (with its combine trees) together and takes the ops in the
// order the dataflow reaches them (BFS from the sources, the seeding order),
// each on the first chip from the current one that has room for all of it:
// consecutive ops share a chip, and only the seams between chips cross them.
// An op larger than a chip spills over into the next.
#include <vector>

#include "kernelc/Grid.h"
#include "lowering/KernelGraph.h"

namespace dfc::kernelc {

// `order`: every kernel once. Returns the chip per kernel (all 0 on one chip).
std::vector<int> partitionByChip(const lowering::KernelGraph& graph, const std::vector<int>& order, const Grid& grid);

}  // namespace dfc::kernelc
