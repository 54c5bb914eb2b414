#pragma once
// Operator tiling: an operator whose resident tensors (weights, the reused GEMM
// operand, an accumulated result) need more PMUs than a section may use runs
// as P passes of a section of its own, each pass holding 1/P of them and
// streaming the rest from DDR/HBM. The split is along the dimension whose
// passes move the fewest extra bytes:
//   batch      independent GEMMs of a batched operand: nothing extra
//   columns    N (the resident operand by columns): A re-streamed, (P-1) x bytes(A)
//   reduction  K (the resident operand by rows): partial sums of C spilled and
//              re-read between passes, 2 (P-1) x bytes(C)
//   rows       M of a resident result, or the leading axis of an elementwise
//              op's resident tensors: operands not split alongside re-streamed
// The section's estimate pays that traffic at the arch's off-chip bandwidth
// and one pipeline fill per pass. This is the chip plan only: the host
// runtime runs the operator whole (host memory is not the chip's SRAM), so
// results are those of the untiled operator.
#include <optional>
#include <string>

#include "arch/CostModel.h"
#include "partition/Plan.h"

namespace dfc::arch {

// Most passes an operator may be split into.
constexpr int kMaxTilePasses = 1 << 16;

// The fewest passes that fit `pmuBudget`, along the cheapest dimension;
// nullopt when no tiling fits (the streamed buffers alone are too many, or
// the op needs more PCUs than `pcuBudget`).
std::optional<partition::OperatorTiling> planOperatorTiling(const CostModel& cost, const ir::Graph& graph,
                                                            const ir::Node& node, int pmuBudget, int pcuBudget);

// The estimate of a section holding only the tiled operator, adjusted for its
// passes: PMUs of one pass, the extra off-chip bytes, a fill per pass.
void applyTiling(const CostModel& cost, const ir::Graph& graph, const partition::OperatorTiling& tiling,
                 partition::SectionEstimate& estimate);

// "3 passes of reduction tiles 1x1600x6400x16384 (batch x M x N x K), 820 PMUs each".
std::string describeTiling(const partition::OperatorTiling& tiling);

}  // namespace dfc::arch
