#include "frontend/TransformerBlocks.h"

#include <cmath>
#include <optional>

#include "ir/TensorBudget.h"
#include "support/SizeBudget.h"

namespace dfc::frontend::zoo {
namespace {

using ir::OpKind;
using ir::ValueId;

constexpr double kInitStd = 0.02;                    // GPT-2 / BERT initializer range
const double kInitBound = kInitStd * std::sqrt(3.0);  // uniform with that standard deviation
constexpr double kNormEpsilon = 1e-5;
constexpr double kRotaryBase = 10000.0;

// A layer count a graph can hold: --num-layers 1000000 built nodes for minutes
// before anything was checked.
constexpr int64_t kMaxLayers = 4096;

// Floats of one layer's weights: attention (q, k, v, out), the MLP matrices, and
// the vectors (biases, norms; 13 hidden is GPT-2's count, an upper bound for the others).
std::optional<uint64_t> layerWeightFloats(const Dims& d) {
  const auto h = static_cast<uint64_t>(d.hidden);
  const auto kv = static_cast<uint64_t>(d.kvHeads * d.headDim());
  std::optional<uint64_t> attn = support::checkedMul(h, 2 * h + 2 * kv);
  std::optional<uint64_t> mlp = support::checkedMul(h, static_cast<uint64_t>(d.intermediate));
  if (mlp) mlp = support::checkedMul(*mlp, static_cast<uint64_t>(d.mlpMatrices));
  if (!attn || !mlp) return std::nullopt;
  std::optional<uint64_t> sum = support::checkedAdd(*attn, *mlp);
  if (sum) sum = support::checkedAdd(*sum, 13 * h + static_cast<uint64_t>(d.intermediate));
  return sum;
}

// The layers' weights together: their count must not overflow. They are init
// recipes, nothing is allocated at compile time: the memory budget guards the
// run that materializes them (ir::checkGraphBudget when a PEF is read to run).
Status checkLayerWeights(const std::string& name, const Dims& d) {
  if (d.layers > kMaxLayers)
    return makeError("model '" + name + "': num_layers " + std::to_string(d.layers) + " is more than " +
                     std::to_string(kMaxLayers));
  std::optional<uint64_t> bytes = layerWeightFloats(d);
  if (bytes) bytes = support::checkedMul(*bytes, static_cast<uint64_t>(d.layers));
  if (bytes) bytes = support::checkedMul(*bytes, 4);  // f32
  const std::string what = "the weight store of model '" + name + "' (" + std::to_string(d.layers) +
                           " layers of hidden_size " + std::to_string(d.hidden) + ")";
  if (!bytes) return makeError(what + ": size overflows");
  return {};
}

Status checkHeads(const std::string& name, const Dims& d) {
  if (d.hidden % d.heads != 0)
    return makeError("model '" + name + "': hidden_size " + std::to_string(d.hidden) +
                     " is not a multiple of num_heads " + std::to_string(d.heads));
  if (d.heads % d.kvHeads != 0)
    return makeError("model '" + name + "': --num-heads " + std::to_string(d.heads) +
                     " is not a multiple of --num-kv-heads " + std::to_string(d.kvHeads));
  return {};
}

// The largest tensors the model declares, checked before any is built:
// --seq-len 1000000000 died of bad_alloc. The position ids are filled now
// (the memory budget applies); the others are declared, or init recipes, only.
Status checkTensorSizes(const std::string& name, const Dims& d) {
  const std::pair<const char*, ir::TensorType> largest[] = {
      {"attention scores", {ir::DType::F32, {d.batch, d.heads, d.seq, d.seq}}},
      {"logits", {ir::DType::F32, {d.batch, d.seq, d.vocab}}},
      {"token embedding", {ir::DType::F32, {d.vocab, d.hidden}}},
      {"hidden states", {ir::DType::F32, {d.batch * d.seq, d.intermediate}}},
  };
  const std::string sizes = "model '" + name + "' (batch " + std::to_string(d.batch) + ", seq_len " +
                            std::to_string(d.seq) + ", hidden_size " + std::to_string(d.hidden) + ", num_heads " +
                            std::to_string(d.heads) + ", vocab_size " + std::to_string(d.vocab) + ")";
  for (const auto& [what, type] : largest)
    if (auto st = ir::checkTensorBound(what, type); !st) return st.error().withContext(sizes);
  const ir::TensorType positions{ir::DType::I64, {d.batch, d.seq}};
  if (auto st = ir::checkTensorBudget("position ids", positions); !st) return st.error().withContext(sizes);
  return {};
}

// A decode step's KV caches: one K and one V cache per layer, each within the
// tensor bound; together, like the weights, they are zero-filled state the run allocates.
Status checkKvCaches(const std::string& name, const Dims& d) {
  const ir::TensorType cache{ir::DType::F32, {d.batch, d.kvHeads, d.cacheLen, d.headDim()}};
  const std::string what = "--kv-cache-len " + std::to_string(d.cacheLen) + ": the KV caches of model '" + name + "'";
  if (auto st = ir::checkTensorBudget("one layer's K cache", cache); !st) return st.error().withContext(what);
  std::optional<uint64_t> bytes = support::checkedMul(static_cast<uint64_t>(cache.numElements()) * 4, 2);
  if (bytes) bytes = support::checkedMul(*bytes, static_cast<uint64_t>(d.layers));
  if (!bytes) return makeError(what + ": size overflows");
  return {};
}

ValueId perm(GraphBuilder& b, ValueId x, std::vector<int64_t> p) {
  return op1(b, OpKind::Transpose, {x}, {{"perm", std::move(p)}});
}

ValueId binary(GraphBuilder& b, const char* fn, ValueId x, ValueId y) {
  return op1(b, OpKind::Binary, {x, y}, {{"fn", std::string(fn)}});
}

ValueId scalarConst(GraphBuilder& b, const std::string& name, float value) {
  ir::Tensor t(ir::TensorType{ir::DType::F32, {}});
  t.data<float>()[0] = value;
  return b.constant(name, std::move(t));
}

}  // namespace

Expected<Dims> transformerDims(const std::string& name, const ZooOptions& options,
                               std::map<std::string, int64_t> defaults, int64_t mlpMatrices) {
  auto p = resolveParams(name, options, std::move(defaults));
  if (!p) return p.error();
  Dims d{options.batchSize, p->at("seq_len"), p->at("hidden_size"), p->at("num_heads"), p->at("num_layers"),
         p->at("vocab_size")};
  d.kvHeads = p->count("num_kv_heads") ? p->at("num_kv_heads") : d.heads;
  d.intermediate = p->count("intermediate_size") ? p->at("intermediate_size") : 4 * d.hidden;
  d.mlpMatrices = mlpMatrices;
  if (options.kvCacheLen > 0) {  // a decode step: T new tokens per sequence, positions up to the cache length
    d.cacheLen = options.kvCacheLen;
    d.seq = options.decodeTokens;
    if (d.seq < 1 || d.seq > std::min(kMaxDecodeTokens, d.cacheLen))
      return makeError("--decode-tokens " + std::to_string(d.seq) + ": must be 1.." +
                       std::to_string(std::min(kMaxDecodeTokens, d.cacheLen)) + " (at most --kv-cache-len)");
  }
  DFC_TRY(checkHeads(name, d));
  if (d.decode()) DFC_TRY(checkKvCaches(name, d));
  DFC_TRY(checkTensorSizes(name, d));
  DFC_TRY(checkLayerWeights(name, d));
  return d;
}

void tokenInputs(GraphBuilder& b, Model& model, Dims& d) {
  model.image = b.input("input_ids", ir::TensorType{ir::DType::I64, {d.batch, d.seq}});
  if (!d.decode()) return;
  d.position = b.input("position", ir::TensorType{ir::DType::I64, {1}});
  d.positions = d.position;
  if (d.seq > 1) {  // position + [0, 1, ..., T-1]
    ir::Tensor offsets(ir::TensorType{ir::DType::I64, {d.seq}});
    for (int64_t t = 0; t < d.seq; ++t) offsets.data<int64_t>()[t] = t;
    d.positions = binary(b, "add", d.position, b.constant("decode_offsets", std::move(offsets)));
  }
}

ValueId initParam(GraphBuilder& b, const std::string& name, ir::Shape shape) {
  return b.paramUniform(name, std::move(shape), kInitBound);
}

ValueId linear(GraphBuilder& b, ValueId x, int64_t in, int64_t out, const std::string& name) {
  ValueId w = initParam(b, name + ".weight", {in, out});
  ValueId bias = filledParam(b, name + ".bias", {out}, 0.0f);
  return b.biasAdd(b.matmul(x, w), bias);
}

ValueId projection(GraphBuilder& b, ValueId x, int64_t in, int64_t out, const std::string& name) {
  return b.matmul(x, initParam(b, name + ".weight", {in, out}));
}

ValueId layerNorm(GraphBuilder& b, ValueId x, int64_t d, const std::string& name) {
  ValueId gamma = filledParam(b, name + ".weight", {d}, 1.0f);
  ValueId beta = filledParam(b, name + ".bias", {d}, 0.0f);
  return op1(b, OpKind::LayerNorm, {x, gamma, beta}, {{"epsilon", kNormEpsilon}});
}

ValueId rmsNorm(GraphBuilder& b, ValueId x, int64_t d, const std::string& name) {
  ValueId gamma = filledParam(b, name + ".weight", {d}, 1.0f);
  const int64_t last = static_cast<int64_t>(b.graph().value(x).type.shape.size()) - 1;
  ValueId sumSq = op1(b, OpKind::Reduce, {x},
                      {{"fn", std::string("sum_square")}, {"axes", std::vector<int64_t>{last}}, {"keepdims", int64_t{1}}});
  ValueId meanSq = b.scale(sumSq, 1.0 / static_cast<double>(d));
  ValueId rms = op1(b, OpKind::Unary, {binary(b, "add", meanSq, scalarConst(b, name + ".eps", kNormEpsilon))},
                    {{"fn", std::string("sqrt")}});
  return binary(b, "mul", binary(b, "div", x, rms), gamma);
}

Rotary rotaryTables(GraphBuilder& b, const Dims& d) {
  const int64_t dh = d.headDim(), half = dh / 2, rows = d.maxPositions();
  ir::Tensor cosT(ir::TensorType{ir::DType::F32, {rows, dh}});
  ir::Tensor sinT(ir::TensorType{ir::DType::F32, {rows, dh}});
  float* c = cosT.data<float>();
  float* s = sinT.data<float>();
  // rotate-half pairs dimension i with i +- Dh/2; both share frequency i mod Dh/2.
  std::vector<double> freq(static_cast<size_t>(dh));
  for (int64_t i = 0; i < dh; ++i)
    freq[static_cast<size_t>(i)] = std::pow(kRotaryBase, -2.0 * static_cast<double>(i % half) / static_cast<double>(dh));
  for (int64_t t = 0; t < rows; ++t)
    for (int64_t i = 0; i < dh; ++i) {
      const double angle = static_cast<double>(t) * freq[static_cast<size_t>(i)];
      c[t * dh + i] = static_cast<float>(std::cos(angle));
      s[t * dh + i] = static_cast<float>(std::sin(angle));
    }
  Rotary r{b.constant("rotary_cos", std::move(cosT)), b.constant("rotary_sin", std::move(sinT))};
  if (d.decode()) {  // the step's rows of each table: [T, Dh]
    r.cos = op1(b, OpKind::Gather, {r.cos, d.positions}, {{"axis", int64_t{0}}});
    r.sin = op1(b, OpKind::Gather, {r.sin, d.positions}, {{"axis", int64_t{0}}});
  }
  return r;
}

ValueId applyRotary(GraphBuilder& b, ValueId x, const Rotary& r, int64_t dh) {
  const int64_t half = dh / 2;
  auto slice = [&](int64_t start, int64_t end) {
    return op1(b, OpKind::Slice, {x}, {{"axis", int64_t{3}}, {"start", start}, {"end", end}});
  };
  ValueId lo = slice(0, half), hi = slice(half, dh);
  ValueId negHi = op1(b, OpKind::Unary, {hi}, {{"fn", std::string("neg")}});
  ValueId rotated = op1(b, OpKind::Concat, {negHi, lo}, {{"axis", int64_t{3}}});  // [-x2, x1]
  return b.add(binary(b, "mul", x, r.cos), binary(b, "mul", rotated, r.sin));
}

namespace {

// Slopes 2^(-8 i / n) for the heads (n the largest power of two <= heads), then
// the odd powers of the next one's slopes for the rest, as in BLOOM.
std::vector<double> alibiSlopes(int64_t heads) {
  int64_t n = 1;
  while (n * 2 <= heads) n *= 2;
  std::vector<double> slopes;
  for (int64_t i = 1; i <= n; ++i) slopes.push_back(std::pow(2.0, -8.0 * static_cast<double>(i) / static_cast<double>(n)));
  for (int64_t i = 1; static_cast<int64_t>(slopes.size()) < heads; i += 2)
    slopes.push_back(std::pow(2.0, -8.0 * static_cast<double>(i) / static_cast<double>(2 * n)));
  return slopes;
}

}  // namespace

ValueId alibiBias(GraphBuilder& b, const Dims& d) {
  const std::vector<double> slopes = alibiSlopes(d.heads);
  if (d.decode()) {
    ir::Tensor t(ir::TensorType{ir::DType::F32, {d.heads}});
    for (int64_t h = 0; h < d.heads; ++h) t.data<float>()[h] = static_cast<float>(slopes[static_cast<size_t>(h)]);
    return b.constant("alibi_slopes", std::move(t));
  }
  ir::Tensor bias(ir::TensorType{ir::DType::F32, {d.heads, 1, d.seq}});
  float* out = bias.data<float>();
  for (int64_t h = 0; h < d.heads; ++h)
    for (int64_t j = 0; j < d.seq; ++j) out[h * d.seq + j] = static_cast<float>(slopes[static_cast<size_t>(h)] * static_cast<double>(j));
  return b.constant("alibi", std::move(bias));
}

ValueId splitHeads(GraphBuilder& b, ValueId x, const Dims& d, int64_t heads) {
  return b.reshape(x, {d.batch, d.seq, heads, d.headDim()});
}

ValueId headsFirst(GraphBuilder& b, ValueId x) { return perm(b, x, {0, 2, 1, 3}); }

namespace {

// [B, KVH, T, Dh] -> [B, H, T, Dh]: each key/value head repeated for its group of query heads.
ValueId repeatKv(GraphBuilder& b, ValueId x, const Dims& d) {
  if (d.kvHeads == d.heads) return x;
  const int64_t group = d.heads / d.kvHeads, dh = d.headDim();
  ValueId g = b.reshape(x, {d.batch, d.kvHeads, 1, d.seq, dh});
  g = op1(b, OpKind::Expand, {g}, {{"shape", std::vector<int64_t>{d.batch, d.kvHeads, group, d.seq, dh}}});
  return b.reshape(g, {d.batch, d.heads, d.seq, dh});
}

}  // namespace

namespace {

// The layer's cache `name` (a zero Const [B, KVH, N, Dh]) with rows [B, KVH, 1, Dh]
// written at the position; the state update keeps the written cache for the next step.
ValueId appendToCache(GraphBuilder& b, const std::string& name, ValueId rows, const Dims& d) {
  const ir::TensorType type{ir::DType::F32, {d.batch, d.kvHeads, d.cacheLen, d.headDim()}};
  ValueId cache = b.constant(name, ir::Tensor::deferred(type, {ir::InitRecipe::Kind::Zeros, 0.0, 0}));
  ValueId written = op1(b, OpKind::KvCacheWrite, {cache, rows, d.position});
  if (written != ir::kNoValue) b.graph().updates.push_back({cache, written});
  return written;
}

// The decode step's attention: q [B, H, 1, Dh] over the caches' rows 0..position.
ValueId attendCached(GraphBuilder& b, ValueId q, ValueId k, ValueId v, const Dims& d, ValueId slopes) {
  std::vector<ValueId> in = {q, appendToCache(b, "k_cache", k, d), appendToCache(b, "v_cache", v, d), d.position};
  if (slopes != ir::kNoValue) in.push_back(slopes);
  const double scale = 1.0 / std::sqrt(static_cast<double>(d.headDim()));
  ValueId ctx = op1(b, OpKind::DecodeAttention, std::move(in), {{"scale", scale}});
  return b.reshape(headsFirst(b, ctx), {d.batch * d.seq, d.hidden});
}

}  // namespace

ValueId attend(GraphBuilder& b, ValueId q, ValueId k, ValueId v, const Dims& d, bool causal, ValueId scoreBias) {
  if (d.decode()) return attendCached(b, q, k, v, d, scoreBias);
  auto bmm = [&](ValueId a, ValueId c, bool tb) {
    return op1(b, OpKind::BatchMatMul, {a, c}, {{"trans_a", int64_t{0}}, {"trans_b", int64_t{tb}}});
  };
  k = repeatKv(b, k, d);
  v = repeatKv(b, v, d);
  const double dh = static_cast<double>(d.headDim());
  ValueId scores = b.scale(bmm(q, k, true), 1.0 / std::sqrt(dh));  // [B,H,T,T]
  if (scoreBias != ir::kNoValue) scores = binary(b, "add", scores, scoreBias);
  if (causal) scores = op1(b, OpKind::CausalMask, {scores}, {{"fill", -1e9}});
  ValueId ctx = bmm(b.softmax(scores), v, false);  // [B, H, T, Dh]
  ctx = headsFirst(b, ctx);                        // [B, T, H, Dh]
  return b.reshape(ctx, {d.batch * d.seq, d.hidden});
}

ValueId tokenEmbedding(GraphBuilder& b, ValueId ids, const Dims& d, ValueId& table, const std::string& tableName) {
  table = initParam(b, tableName, {d.vocab, d.hidden});
  return b.reshape(op1(b, OpKind::Embedding, {table, ids}), {d.batch * d.seq, d.hidden});
}

ValueId lmHead(GraphBuilder& b, ValueId h, const Dims& d, ValueId tiedTable) {
  ValueId logits = tiedTable != ir::kNoValue ? b.matmul(h, tiedTable, false, true)
                                             : projection(b, h, d.hidden, d.vocab, "lm_head");
  return b.reshape(logits, {d.batch, d.seq, d.vocab});
}

Model languageModel(const std::string& name, const Dims& d) {
  Model model;
  model.graph.name = name;
  model.task = "language_model";
  model.numClasses = d.vocab;
  return model;
}


ValueId fusedQkvAttention(GraphBuilder& b, ValueId x, const Dims& d, bool causal, ValueId scoreBias,
                          const Rotary* rotary) {
  const int64_t dh = d.headDim();
  ValueId qkv = linear(b, x, d.hidden, 3 * d.hidden, "c_attn");
  qkv = b.reshape(qkv, {d.batch, d.seq, 3, d.heads, dh});
  qkv = perm(b, qkv, {2, 0, 3, 1, 4});  // [3, B, H, T, Dh]
  ValueId parts[3];
  for (int64_t i = 0; i < 3; ++i) {
    ValueId s = op1(b, OpKind::Slice, {qkv}, {{"axis", int64_t{0}}, {"start", i}, {"end", i + 1}});
    parts[i] = b.reshape(s, {d.batch, d.heads, d.seq, dh});
    if (rotary && i < 2) parts[i] = applyRotary(b, parts[i], *rotary, dh);
  }
  ValueId ctx = attend(b, parts[0], parts[1], parts[2], d, causal, scoreBias);
  return linear(b, ctx, d.hidden, d.hidden, "c_proj");
}

ValueId geluMlp(GraphBuilder& b, ValueId x, const Dims& d) {
  ValueId h = op1(b, OpKind::Gelu, {linear(b, x, d.hidden, d.intermediate, "c_fc")});
  return linear(b, h, d.intermediate, d.hidden, "c_proj");
}

Status checkRotary(const std::string& name, const Dims& d) {
  if (d.headDim() % 2 == 0) return {};
  return makeError("model '" + name + "': rotary embeddings need an even head size, hidden_size / num_heads is " +
                   std::to_string(d.headDim()));
}

ValueId decoderLayers(GraphBuilder& b, ValueId x, const Dims& d, const DecoderBlock& block) {
  auto branch = [&](const std::string& scope, const Branch& fn, ValueId in) {
    auto s = b.scope(scope);
    return fn(b, in);
  };
  for (int64_t i = 0; i < d.layers; ++i) {
    auto layer = b.scope(block.prefix + std::to_string(i));
    if (block.parallel) {
      ValueId a = branch(block.attnScope, block.attention, x);
      ValueId m = branch(block.mlpScope, block.mlp, x);
      x = b.add(b.add(x, a), m);
      continue;
    }
    x = b.add(x, branch(block.attnScope, block.attention, x));
    x = b.add(x, branch(block.mlpScope, block.mlp, x));
  }
  return x;
}

Status finishLanguageModel(GraphBuilder& b, Model& model, ValueId x, const Dims& d, const LmHead& head) {
  {
    auto s = b.scope(head.normScope);
    x = head.norm(b, x);
  }
  {
    auto s = b.scope(head.headScope);
    model.logits = lmHead(b, x, d, head.tiedTable);
  }
  if (!b.status()) return b.status().error().withContext("model '" + model.graph.name + "'");
  model.graph.outputs = {model.logits};
  return {};
}

}  // namespace dfc::frontend::zoo
