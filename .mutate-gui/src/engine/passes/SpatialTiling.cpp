// Spatial tiling (--num-spatial-batches): plan the row ranges each tile needs,
// back from the prefix's end to the image, then emit the prefix once per tile.
//
// Row arithmetic along H for a window op (kernel k, stride s, pad p): output
// row o reads input rows o*s-p .. o*s-p+k-1. A tile that must produce output
// rows [a, b) runs the op, with its own symmetric padding, on input rows
// [i0, i1): i0 is a multiple of s (so its outputs line up with the untiled
// ones) at or below a*s-p (0 when that is the image's top edge, whose padding
// is real), i1 covers (b-1)*s-p+k (or the bottom edge). The tile-local
// outputs that touch the tile's own padding fall outside [a, b) and are cut
// off by a slice; halos are therefore exact, and the tiled result equals the
// untiled one.
#include "passes/SpatialTiling.h"

#include <algorithm>

#include "ir/GeneralOps.h"
#include "passes/GraphRewriter.h"
#include "support/JsonWriter.h"

namespace dfc::passes {

using ir::NodeId;
using ir::OpKind;
using ir::ValueId;

int64_t SpatialLayer::haloRows() const {
  int64_t sum = 0;
  for (int64_t r : tileRows) sum += r;
  return sum - rows;
}

namespace {

constexpr int kHeightAxis = 2;  // NCHW

struct Rows {
  int64_t lo = 0, hi = 0;  // [lo, hi); empty when hi <= lo
  bool empty() const { return hi <= lo; }
  int64_t size() const { return hi - lo; }
  Rows join(Rows o) const { return empty() ? o : o.empty() ? *this : Rows{std::min(lo, o.lo), std::max(hi, o.hi)}; }
};

// A window op's geometry along H (ONNX's for conv/pool: pads top and bottom, dilation, ceil_mode).
struct Window {
  int64_t k = 1, s = 1, p = 0, pEnd = 0, d = 1;
  bool ceil = false;
  bool window = false;
  bool isWindow() const { return window; }
  int64_t extent() const { return (k - 1) * d + 1; }
  int64_t outRows(int64_t inRows) const { return window ? ir::windowOut(inRows, k, s, p, pEnd, d, ceil) : inRows; }
};

bool rowWise(OpKind op) {
  switch (op) {
    case OpKind::Relu:
    case OpKind::Scale:
    case OpKind::Unary:
    case OpKind::BiasAdd:
    case OpKind::BatchNorm:
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::Binary:
      return true;
    default:
      return false;
  }
}

bool windowOp(OpKind op) {
  return op == OpKind::Conv2d || op == OpKind::MaxPool2d || op == OpKind::Conv || op == OpKind::Pool;
}

bool spatialOp(OpKind op) { return windowOp(op) || rowWise(op); }

// A weight operand keeps an op row-wise unless it varies along H: conv/bias/batch_norm
// weights always; a broadcast binary operand when its axis for H (second from last) is 1.
bool rowWiseWeight(OpKind op, const ir::TensorType& w) {
  if (op == OpKind::Add || op == OpKind::Sub || op == OpKind::Mul) return false;  // same shapes only
  if (op != OpKind::Binary) return true;
  return w.rank() < 2 || w.shape[w.rank() - 2] == 1;
}

bool isImage4d(const ir::Value& v) { return v.type.rank() == 4 && v.type.dtype == ir::DType::F32; }

class Tiler {
 public:
  Tiler(ir::Graph& g, ValueId image, int tiles) : m_g(g), m_image(image), m_tiles(tiles) {}
  Expected<SpatialPlan> run(bool training);

 private:
  Status findPrefix();
  Status findBoundary();
  Window windowOf(const ir::Node& n) const;
  Rows inputRows(const ir::Node& n, Rows out) const;
  void planTile(Rows boundaryRows, std::vector<Rows>& need) const;
  ValueId sliced(GraphRewriter& rw, ValueId v, Rows have, Rows want, const std::string& name);
  ValueId emitNode(GraphRewriter& rw, const ir::Node& n, const std::vector<ValueId>& have,
                   const std::vector<Rows>& need, int tile);
  ValueId emitTile(GraphRewriter& rw, int tile, const std::vector<Rows>& need);
  void describe(SpatialPlan& plan, const std::vector<std::vector<Rows>>& needs) const;
  ir::TensorType withRows(ValueId v, int64_t rows) const;

  ir::Graph& m_g;
  ValueId m_image;
  int m_tiles;
  std::vector<char> m_spatial;   // by value id: an image-shaped value of the prefix
  std::vector<NodeId> m_prefix;  // prefix nodes in order
  std::vector<char> m_inPrefix;  // by node id
  ValueId m_boundary = ir::kNoValue;
  NodeId m_anchor = ir::kNoNode;       // first node reading the boundary: the tiles run before it
  std::vector<std::string> m_emitted;  // names of the nodes the tiles run
};

// Prefix: nodes of a spatial op whose first input is spatial and whose other
// inputs are spatial values of the same shape or weights (params, consts).
Status Tiler::findPrefix() {
  const auto users = m_g.computeUsers();
  auto unused = [&](ValueId v) {  // batch_norm's running-statistics outputs at inference
    return users[static_cast<size_t>(v)].empty() &&
           std::find(m_g.outputs.begin(), m_g.outputs.end(), v) == m_g.outputs.end() &&
           std::none_of(m_g.updates.begin(), m_g.updates.end(),
                        [&](const ir::StateUpdate& u) { return u.newValue == v; });
  };
  m_spatial.assign(m_g.values.size(), 0);
  m_inPrefix.assign(m_g.nodes.size(), 0);
  if (!isImage4d(m_g.value(m_image)))
    return makeError("--num-spatial-batches: the model's input '" + m_g.value(m_image).name + "' is " +
                     m_g.value(m_image).type.toString() + ", not an NCHW image");
  m_spatial[static_cast<size_t>(m_image)] = 1;
  for (const ir::Node& n : m_g.nodes) {
    if (!spatialOp(n.op) || n.inputs.empty() || !m_spatial[static_cast<size_t>(n.inputs[0])]) continue;
    if (!isImage4d(m_g.value(n.outputs[0])) || !std::all_of(n.outputs.begin() + 1, n.outputs.end(), unused)) continue;
    bool ok = true;
    for (size_t i = 1; i < n.inputs.size(); ++i) {
      const ir::Value& in = m_g.value(n.inputs[i]);
      bool weight = in.kind == ir::ValueKind::Param || in.kind == ir::ValueKind::Const;
      bool sameSpatial = m_spatial[static_cast<size_t>(in.id)] && in.type == m_g.value(n.inputs[0]).type;
      ok = ok && (weight ? rowWiseWeight(n.op, in.type) : sameSpatial);
    }
    if (!ok) continue;
    m_spatial[static_cast<size_t>(n.outputs[0])] = 1;
    m_inPrefix[static_cast<size_t>(n.id)] = 1;
    m_prefix.push_back(n.id);
  }
  if (m_prefix.empty())
    return makeError("--num-spatial-batches: model '" + m_g.name +
                     "' has no spatial prefix (no conv/pool layer reads the image)");
  return {};
}

// The one prefix value the rest of the graph reads.
Status Tiler::findBoundary() {
  auto users = m_g.computeUsers();
  std::vector<ValueId> boundaries;
  for (const ir::Value& v : m_g.values) {
    if (!m_spatial[static_cast<size_t>(v.id)]) continue;
    bool outside = std::find(m_g.outputs.begin(), m_g.outputs.end(), v.id) != m_g.outputs.end();
    for (NodeId u : users[static_cast<size_t>(v.id)]) outside = outside || !m_inPrefix[static_cast<size_t>(u)];
    if (outside) boundaries.push_back(v.id);
  }
  if (boundaries.size() != 1 || boundaries[0] == m_image) {
    std::string names;
    for (ValueId v : boundaries) names += (names.empty() ? "'" : ", '") + m_g.value(v).name + "'";
    return makeError("--num-spatial-batches: model '" + m_g.name + "' has no single spatial prefix (the rest of the " +
                     "graph reads " + (names.empty() ? "none of its values" : names) + "; tiling needs one value)");
  }
  m_boundary = boundaries[0];
  for (NodeId u : users[static_cast<size_t>(m_boundary)])
    if (!m_inPrefix[static_cast<size_t>(u)]) {
      m_anchor = u;
      break;
    }
  return {};
}

// Defaults as the ops' shape rules take them.
Window Tiler::windowOf(const ir::Node& n) const {
  auto first = [&](const char* key, int64_t fallback, size_t at = 0) {
    auto v = n.intsAttr(key);
    return v.size() > at ? v[at] : fallback;
  };
  const bool weights = n.op == OpKind::Conv2d || n.op == OpKind::Conv;
  const int64_t k = weights ? m_g.value(n.inputs[1]).type.shape[2] : first("kernel", 2);
  switch (n.op) {
    case OpKind::Conv2d:
      return {k, first("stride", 1), first("pad", 0), first("pad", 0), 1, false, true};
    case OpKind::MaxPool2d:
      return {k, first("stride", 2), first("pad", 0), first("pad", 0), 1, false, true};
    case OpKind::Conv:
    case OpKind::Pool:  // pads [t, l, b, r]
      return {k,
              first("strides", 1),
              first("pads", 0),
              first("pads", 0, 2),
              first("dilations", 1),
              n.intAttr("ceil_mode", 0) != 0,
              true};
    default:
      return {};
  }
}

// The input rows a tile feeds `n` to get output rows `out` (see the file comment).
Rows Tiler::inputRows(const ir::Node& n, Rows out) const {
  Window w = windowOf(n);
  if (!w.isWindow()) return out;
  const int64_t height = m_g.value(n.inputs[0]).type.shape[kHeightAxis];
  const int64_t first = out.lo * w.s - w.p, last = (out.hi - 1) * w.s - w.p + w.extent();
  Rows in;
  in.lo = first <= 0 ? 0 : (first / w.s) * w.s;
  in.hi = std::min(height, last);
  return in;
}

// need[v]: the rows of v this tile computes (the union of what its readers take).
void Tiler::planTile(Rows boundaryRows, std::vector<Rows>& need) const {
  need.assign(m_g.values.size(), Rows{});
  need[static_cast<size_t>(m_boundary)] = boundaryRows;
  for (auto it = m_prefix.rbegin(); it != m_prefix.rend(); ++it) {
    const ir::Node& n = m_g.node(*it);
    Rows out = need[static_cast<size_t>(n.outputs[0])];
    if (out.empty()) continue;
    Rows in = inputRows(n, out);
    for (ValueId v : n.inputs)
      if (m_spatial[static_cast<size_t>(v)]) need[static_cast<size_t>(v)] = need[static_cast<size_t>(v)].join(in);
  }
}

ir::TensorType Tiler::withRows(ValueId v, int64_t rows) const {
  ir::TensorType t = m_g.value(v).type;
  t.shape[kHeightAxis] = rows;
  return t;
}

// `v` holds rows `have`; a slice to rows `want` (v itself when they agree).
ValueId Tiler::sliced(GraphRewriter& rw, ValueId v, Rows have, Rows want, const std::string& name) {
  if (have.lo == want.lo && have.hi == want.hi) return v;
  ir::TensorType t = rw.value(v).type;
  t.shape[kHeightAxis] = want.size();
  ValueId out = rw.addValue(m_anchor, rw.uniqueValueName(name), t);
  ir::Node slice;
  slice.op = OpKind::Slice;
  slice.name = rw.uniqueNodeName(name);
  slice.inputs = {v};
  slice.outputs = {out};
  slice.attrs = {{"axis", int64_t{kHeightAxis}}, {"start", want.lo - have.lo}, {"end", want.hi - have.lo}};
  slice.scope = rw.value(v).producer != ir::kNoNode ? rw.graph().node(rw.value(v).producer).scope : "";
  m_emitted.push_back(slice.name);
  rw.insertNode(m_anchor, std::move(slice));
  return out;
}

// One prefix node for one tile: its spatial inputs cut to the rows it reads,
// the op on them, and its output cut to the rows the tile keeps.
ValueId Tiler::emitNode(GraphRewriter& rw, const ir::Node& n, const std::vector<ValueId>& have,
                        const std::vector<Rows>& need, int tile) {
  const std::string tag = ".tile" + std::to_string(tile);
  const Rows out = need[static_cast<size_t>(n.outputs[0])];
  const Rows in = inputRows(n, out);
  ir::Node copy = n;
  for (ValueId& v : copy.inputs)
    if (m_spatial[static_cast<size_t>(v)])
      v = sliced(rw, have[static_cast<size_t>(v)], need[static_cast<size_t>(v)], in, m_g.value(v).name + tag + ".rows");
  const Window w = windowOf(n);
  const int64_t localRows = w.outRows(in.size());
  const Rows local{in.lo / w.s, in.lo / w.s + localRows};  // the global rows the tile-local outputs stand for
  copy.name = rw.uniqueNodeName(n.name + tag);
  copy.outputs = {
      rw.addValue(m_anchor, rw.uniqueValueName(m_g.value(n.outputs[0]).name + tag), withRows(n.outputs[0], localRows))};
  for (size_t i = 1; i < n.outputs.size(); ++i)  // unused side outputs, kept for the op's arity
    copy.outputs.push_back(
        rw.addValue(m_anchor, rw.uniqueValueName(m_g.value(n.outputs[i]).name + tag), m_g.value(n.outputs[i]).type));
  ValueId result = copy.outputs[0];
  m_emitted.push_back(copy.name);
  rw.insertNode(m_anchor, std::move(copy));
  return sliced(rw, result, local, out, m_g.value(n.outputs[0]).name + tag + ".crop");
}

// The prefix for one tile; returns the tile's rows of the boundary.
ValueId Tiler::emitTile(GraphRewriter& rw, int tile, const std::vector<Rows>& need) {
  std::vector<ValueId> have(m_g.values.size(), ir::kNoValue);
  const Rows whole{0, m_g.value(m_image).type.shape[kHeightAxis]};
  have[static_cast<size_t>(m_image)] = sliced(rw, m_image, whole, need[static_cast<size_t>(m_image)],
                                              m_g.value(m_image).name + ".tile" + std::to_string(tile));
  for (NodeId id : m_prefix) {
    const ir::Node& n = m_g.node(id);
    if (need[static_cast<size_t>(n.outputs[0])].empty()) continue;
    have[static_cast<size_t>(n.outputs[0])] = emitNode(rw, n, have, need, tile);
  }
  return have[static_cast<size_t>(m_boundary)];
}

double convFlop(const ir::Graph& g, const ir::Node& n, int64_t rows) {
  if (n.op != OpKind::Conv2d) return 0;
  const auto& y = g.value(n.outputs[0]).type.shape;
  const auto& w = g.value(n.inputs[1]).type.shape;
  return 2.0 * static_cast<double>(y[0] * y[1] * rows * y[3] * w[1] * w[2] * w[3]);
}

void Tiler::describe(SpatialPlan& plan, const std::vector<std::vector<Rows>>& needs) const {
  for (const auto& need : needs) plan.inputRows.push_back(need[static_cast<size_t>(m_image)].size());
  for (NodeId id : m_prefix) {
    const ir::Node& n = m_g.node(id);
    const ir::TensorType& t = m_g.value(n.outputs[0]).type;
    const Window w = windowOf(n);
    SpatialLayer layer{n.name, std::string(ir::opName(n.op)), w.k, w.s, w.p, t.shape[kHeightAxis], {}};
    const double rowBytes = static_cast<double>(t.byteSize()) / static_cast<double>(t.shape[kHeightAxis]);
    plan.flopUntiled += convFlop(m_g, n, layer.rows);
    plan.peakBytesUntiled = std::max(plan.peakBytesUntiled, static_cast<double>(t.byteSize()));
    for (const auto& need : needs) {
      // A window op computes its whole tile-local output, halo and cut-off rows included.
      const Rows out = need[static_cast<size_t>(n.outputs[0])], in = inputRows(n, out);
      const int64_t rows = out.empty() ? 0 : w.isWindow() ? w.outRows(in.size()) : out.size();
      layer.tileRows.push_back(rows);
      plan.flopTiled += convFlop(m_g, n, rows);
      plan.peakBytesTile = std::max(plan.peakBytesTile, rowBytes * static_cast<double>(rows));
    }
    plan.layers.push_back(std::move(layer));
  }
}

Expected<SpatialPlan> Tiler::run(bool training) {
  DFC_TRY(findPrefix());
  DFC_TRY(findBoundary());
  for (NodeId id : m_prefix)
    if (training && m_g.node(id).op == OpKind::BatchNorm)
      return makeError("--num-spatial-batches: training over batch_norm '" + m_g.node(id).name +
                       "' is not supported (its batch statistics would be per tile); compile with --inference");
  const int64_t height = m_g.value(m_boundary).type.shape[kHeightAxis];
  const int64_t imageHeight = m_g.value(m_image).type.shape[kHeightAxis];
  if (m_tiles > height)
    return makeError("--num-spatial-batches " + std::to_string(m_tiles) + ": more tiles than the " +
                     std::to_string(height) + " rows where the spatial prefix ends ('" + m_g.value(m_boundary).name +
                     "'; image height " + std::to_string(imageHeight) + ")");
  SpatialPlan plan;
  plan.tiles = m_tiles;
  plan.boundary = m_g.value(m_boundary).name;
  std::vector<std::vector<Rows>> needs(static_cast<size_t>(m_tiles));
  int64_t lo = 0;
  for (int t = 0; t < m_tiles; ++t) {  // the first (height % tiles) tiles own one row more
    const int64_t rows = height / m_tiles + (t < height % m_tiles ? 1 : 0);
    plan.boundaryRows.push_back(rows);
    planTile({lo, lo + rows}, needs[static_cast<size_t>(t)]);
    lo += rows;
  }
  describe(plan, needs);
  GraphRewriter rw(m_g);  // a copy: the untiled graph stays readable while the tiles are emitted
  ir::Node concat;
  for (int t = 0; t < m_tiles; ++t) concat.inputs.push_back(emitTile(rw, t, needs[static_cast<size_t>(t)]));
  const ir::Value boundary = rw.value(m_boundary);
  concat.op = OpKind::Concat;
  concat.name = rw.uniqueNodeName(boundary.name + ".tiles");
  concat.outputs = {rw.addValue(m_anchor, rw.uniqueValueName(boundary.name + ".tiles"), boundary.type)};
  concat.attrs = {{"axis", int64_t{kHeightAxis}}};
  concat.scope = rw.graph().node(boundary.producer).scope;
  const ValueId joined = concat.outputs[0];
  m_emitted.push_back(concat.name);
  rw.insertNode(m_anchor, std::move(concat));
  rw.replaceAllUses(m_boundary, joined);
  for (NodeId id : m_prefix) rw.eraseNode(id);
  auto rebuilt = rw.finish();
  if (!rebuilt) return rebuilt.error();
  m_g = std::move(*rebuilt);
  plan.tiledNodes = std::move(m_emitted);
  return plan;
}

}  // namespace

Expected<SpatialPlan> tileSpatialPrefix(ir::Graph& graph, ir::ValueId image, int tiles, bool training) {
  if (tiles < 1) return makeError("--num-spatial-batches must be at least 1, got " + std::to_string(tiles));
  if (tiles == 1) return SpatialPlan{};
  return Tiler(graph, image, tiles).run(training);
}

std::string spatialPlanJson(const SpatialPlan& plan) {
  support::JsonWriter w;
  w.beginObject().field("tiles", plan.tiles).field("axis", plan.axis).field("boundary", plan.boundary);
  auto ints = [&](const char* key, const std::vector<int64_t>& v) {
    w.key(key).beginArray();
    for (int64_t x : v) w.value(x);
    w.endArray();
  };
  ints("boundary_rows", plan.boundaryRows);
  ints("input_rows", plan.inputRows);
  w.field("flop_untiled", plan.flopUntiled).field("flop_tiled", plan.flopTiled);
  w.field("peak_bytes_untiled", plan.peakBytesUntiled).field("peak_bytes_tile", plan.peakBytesTile);
  w.field("est_us_untiled", plan.estUsUntiled).field("est_us_tiled", plan.estUsTiled);
  w.field("max_pmus_untiled", plan.maxPmusUntiled).field("max_pmus_tiled", plan.maxPmusTiled);
  w.key("layers").beginArray();
  for (const SpatialLayer& l : plan.layers) {
    w.beginObject().field("node", l.node).field("op", l.op).field("kernel", l.kernel).field("stride", l.stride);
    w.field("pad", l.pad).field("rows", l.rows).field("halo_rows", l.haloRows());
    ints("tile_rows", l.tileRows);
    w.endObject();
  }
  w.endArray().endObject();
  return w.take();
}

}  // namespace dfc::passes
