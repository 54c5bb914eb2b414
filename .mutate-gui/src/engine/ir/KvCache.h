#pragma once
// The KV cache of a decode step (dfc compile --inference --decode; the zoo's
// decoders build it, frontend/TransformerBlocks.h). How a tool finds it in a
// graph or a PEF, without names or flags: a KV cache is a persistent Const
// value f32[B, KVH, N, Dh] (zero-initialised, an InitRecipe) that is input 0
// of a kv_cache_write node, and the graph's state update of that Const takes
// the node's output. So a cost model tells cache bytes from weight bytes
// (Params and other Consts) with isKvCache / kvCacheBytes. On a chip the write
// is in place: its output leaves a section as the rows it wrote
// (boundaryBytes), not as a second copy of the cache; the decode_attention
// that reads the cache reads it up to its static length N.
#include <cstdint>
#include <vector>

#include "ir/Graph.h"

namespace dfc::ir {

// The KV cache Consts of `g`, in value order (empty for a graph without a decode step).
std::vector<ValueId> kvCacheValues(const Graph& g);
bool isKvCache(const Graph& g, ValueId v);
// Bytes of all KV caches together.
int64_t kvCacheBytes(const Graph& g);
// Bytes value `v` moves when it crosses a section boundary: its size, or for
// the output of a kv_cache_write only the rows written (the cache is updated in place).
double boundaryBytes(const Graph& g, ValueId v);

}  // namespace dfc::ir
