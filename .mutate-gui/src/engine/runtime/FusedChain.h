#pragma once
// A chain of elementwise kernels run as one: the elements are cut into tiles
// of kTile floats and every member runs on a tile before the next tile starts,
// so a member reads what the previous one wrote while it is still in L1. A
// value that lives only inside the chain is written to a per-thread tile
// buffer and never to memory. Results are bitwise those of running the
// members one after another (the same loops on the same elements).
#include <vector>

#include "runtime/Kernel.h"
#include "runtime/SectionFusion.h"

namespace dfc::runtime {

class FusedChainKernel final : public Kernel {
 public:
  static constexpr int64_t kTile = 1024;  // floats per tile and buffer slot (4 KB)
  static constexpr int kSlots = kMaxTileValues;  // tile buffer slots

  struct Operand {
    const ir::Tensor* tensor = nullptr;  // in memory
    int slot = -1;                       // or in tile buffer slot `slot`
  };
  struct Member {
    const TileKernel* kernel = nullptr;
    std::vector<Operand> inputs;
    Operand output;
  };

  // `kernels` run in order; `members` says where each reads and writes.
  FusedChainKernel(std::vector<KernelPtr> kernels, std::vector<Member> members, int64_t elements);
  Status run(ExecContext& ctx) override;

 private:
  void runRange(int64_t lo, int64_t hi) const;

  std::vector<KernelPtr> m_kernels;  // owned; members point into them
  std::vector<Member> m_members;
  int64_t m_elements;
};

}  // namespace dfc::runtime
