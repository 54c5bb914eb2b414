#pragma once
// Chunk results (TraceChunkParser.h) made one CompactTrace, as a one-piece
// parse of the same file would give it.
#include <vector>

#include "profile/CompactTrace.h"
#include "profile/TraceChunkParser.h"

namespace dfc::profile {

// Adds the chunks' records, names and counters to `trace` (which holds the
// metadata already, for the section names) and empties the chunks.
void mergeChunks(std::vector<ChunkResult>& chunks, CompactTrace& trace);

}  // namespace dfc::profile
