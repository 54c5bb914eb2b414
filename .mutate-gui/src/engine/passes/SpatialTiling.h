#pragma once
// --num-spatial-batches N: the image is cut into N tiles along H (rows of the
// NCHW image); each tile runs the whole spatial prefix of the model (conv,
// pool, elementwise, inference batch_norm: every op up to the first one that
// mixes rows, such as global pooling, flatten or matmul; ONNX conv and pool
// with their asymmetric pads, dilations and ceil_mode too) on its rows plus the
// halo its receptive field needs, and the tiles' outputs are concatenated
// along H before the rest of the graph. The rewrite is plain IR (slice, the
// prefix ops again per tile, concat), so the mapper puts each tile in its own
// sections (the chip processes tiles in turn), identical tiles share a
// hypersection, and autograd differentiates the tiled form like any other.
#include <cstdint>
#include <string>
#include <vector>

#include "ir/Graph.h"
#include "support/Error.h"

namespace dfc::passes {

// One op of the spatial prefix as the tiles compute it.
struct SpatialLayer {
  std::string node;                         // the untiled node's name
  std::string op;                           // its op name
  int64_t kernel = 1, stride = 1, pad = 0;  // along H (1/1/0 for row-wise ops)
  int64_t rows = 0;                         // output rows of the untiled op
  std::vector<int64_t> tileRows;            // output rows each tile computes (its share plus halo)
  int64_t haloRows() const;                 // rows computed more than once: sum(tileRows) - rows
};

struct SpatialPlan {
  int tiles = 1;
  std::string axis = "H";                          // NCHW axis 2: tiles are bands of image rows
  std::string boundary;                            // the value where the prefix ends (tiles are concatenated into it)
  std::vector<int64_t> boundaryRows;               // rows of `boundary` each tile owns (they add up to its height)
  std::vector<int64_t> inputRows;                  // image rows each tile reads (its band plus halo)
  std::vector<SpatialLayer> layers;                // the prefix in node order
  double flopUntiled = 0, flopTiled = 0;           // multiply-adds x2 of the prefix's conv layers
  double peakBytesUntiled = 0, peakBytesTile = 0;  // largest prefix activation: whole image / one tile
  std::vector<std::string> tiledNodes;             // the nodes the tiles run (copies, slices, the concat), by name
  // The chip's view, op by op (filled by the driver from its cost model): the
  // prefix's summed latency and the most PMUs one of its ops holds, untiled and tiled.
  double estUsUntiled = 0, estUsTiled = 0;
  int maxPmusUntiled = 0, maxPmusTiled = 0;
};

// Rewrites `graph` (a forward graph whose input is `image`) into its tiled
// form and says what it did. Refuses (BadInput, naming the reason) a model
// with no spatial prefix, N larger than the rows where the prefix ends, and
// training over a batch_norm (batch statistics would be per tile).
Expected<SpatialPlan> tileSpatialPrefix(ir::Graph& graph, ir::ValueId image, int tiles, bool training);

// The plan as a JSON object (stored in the PEF's meta).
std::string spatialPlanJson(const SpatialPlan& plan);

}  // namespace dfc::passes
