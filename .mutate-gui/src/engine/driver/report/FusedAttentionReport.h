#pragma once
// The attentions of a PEF that the host runs as one fused FlashAttention-style
// kernel (runtime/AttentionFusion.h: a section holds the whole chain), with
// their shapes and tiles, as `dfc inspect` lists them beside the Winograd
// convolutions and dfstudio names them in a section's details.
#include <string>
#include <vector>

#include "pef/Pef.h"

namespace dfc::driver {

struct FusedAttention {
  std::string softmax;         // the chain's softmax node: names the attention ("h.0/attn/softmax")
  int forwardSection = -1;
  int backwardSection = -1;    // -1: inference, or a forward whose gradient is op by op
  int64_t matrices = 0;        // batch x heads
  int64_t queries = 0, keys = 0, dim = 0;
  bool causal = false;
  int64_t queryTile = 0, keyTile = 0;  // queries x keys per tile of the kernel
};

// What `dfc run` fuses (its default: fusion on); none at -o0, where every op is its own section.
std::vector<FusedAttention> findFusedAttention(const pef::Pef& pef);
// "fused attention (FlashAttention-style): 2 in 2 sections" and one line per attention; none without any.
std::vector<std::string> describeFusedAttention(const pef::Pef& pef);

}  // namespace dfc::driver
