// Transformer models of the zoo: gpt2 (decoder-only, pre-LayerNorm, causal)
// and bert (encoder, post-LayerNorm, bidirectional, classification head).
// Hidden states stay 2-D [B*T, D] so linears are plain matmul + bias_add;
// attention reshapes to [B, H, T, Dh] and uses batch_matmul.
#include <cmath>
#include <optional>

#include "frontend/ModelZooInternal.h"
#include "ir/TensorBudget.h"
#include "support/SizeBudget.h"

namespace dfc::frontend::zoo {
namespace {

using ir::OpKind;
using ir::ValueId;

constexpr double kInitStd = 0.02;                    // GPT-2 / BERT initializer range
const double kInitBound = kInitStd * std::sqrt(3.0);  // uniform with that standard deviation

struct Dims {
  int64_t batch, seq, hidden, heads, layers, vocab;
};

// y = x @ W + b with W [in, out] (GPT-2's Conv1D layout); weights "<name>.weight".
ValueId linear(GraphBuilder& b, ValueId x, int64_t in, int64_t out, const std::string& name) {
  ValueId w = b.paramUniform(name + ".weight", {in, out}, kInitBound);
  ValueId bias = filledParam(b, name + ".bias", {out}, 0.0f);
  return b.biasAdd(b.matmul(x, w), bias);
}

ValueId layerNorm(GraphBuilder& b, ValueId x, int64_t d, const std::string& name) {
  ValueId gamma = filledParam(b, name + ".weight", {d}, 1.0f);
  ValueId beta = filledParam(b, name + ".bias", {d}, 0.0f);
  return op1(b, OpKind::LayerNorm, {x, gamma, beta}, {{"epsilon", 1e-5}});
}

// Multi-head self-attention on x [B*T, D] with one fused QKV matmul [D, 3D].
ValueId attention(GraphBuilder& b, ValueId x, const Dims& d, bool causal) {
  const int64_t dh = d.hidden / d.heads;
  ValueId qkv = linear(b, x, d.hidden, 3 * d.hidden, "c_attn");
  qkv = b.reshape(qkv, {d.batch, d.seq, 3, d.heads, dh});
  qkv = op1(b, OpKind::Transpose, {qkv}, {{"perm", std::vector<int64_t>{2, 0, 3, 1, 4}}});  // [3, B, H, T, Dh]
  ValueId parts[3];
  for (int64_t i = 0; i < 3; ++i) {
    ValueId s = op1(b, OpKind::Slice, {qkv}, {{"axis", int64_t{0}}, {"start", i}, {"end", i + 1}});
    parts[i] = b.reshape(s, {d.batch, d.heads, d.seq, dh});
  }
  auto bmm = [&](ValueId a, ValueId c, bool tb) {
    return op1(b, OpKind::BatchMatMul, {a, c}, {{"trans_a", int64_t{0}}, {"trans_b", int64_t{tb}}});
  };
  ValueId scores = b.scale(bmm(parts[0], parts[1], true), 1.0 / std::sqrt(static_cast<double>(dh)));  // [B,H,T,T]
  if (causal) scores = op1(b, OpKind::CausalMask, {scores}, {{"fill", -1e9}});
  ValueId ctx = bmm(b.softmax(scores), parts[2], false);  // [B, H, T, Dh]
  ctx = op1(b, OpKind::Transpose, {ctx}, {{"perm", std::vector<int64_t>{0, 2, 1, 3}}});
  ctx = b.reshape(ctx, {d.batch * d.seq, d.hidden});
  return linear(b, ctx, d.hidden, d.hidden, "c_proj");
}

ValueId mlp(GraphBuilder& b, ValueId x, const Dims& d) {
  ValueId h = op1(b, OpKind::Gelu, {linear(b, x, d.hidden, 4 * d.hidden, "c_fc")});
  return linear(b, h, 4 * d.hidden, d.hidden, "c_proj");
}

// Token + position embeddings -> [B*T, D]. Position ids are a Const [B, T].
ValueId embeddings(GraphBuilder& b, ValueId ids, const Dims& d, ValueId& tokenTable) {
  tokenTable = b.paramUniform("wte", {d.vocab, d.hidden}, kInitBound);
  ValueId posTable = b.paramUniform("wpe", {d.seq, d.hidden}, kInitBound);
  ir::Tensor pos(ir::TensorType{ir::DType::I64, {d.batch, d.seq}});
  for (int64_t i = 0; i < pos.numElements(); ++i) pos.data<int64_t>()[i] = i % d.seq;
  ValueId posIds = b.constant("position_ids", std::move(pos));
  ValueId x = b.add(op1(b, OpKind::Embedding, {tokenTable, ids}), op1(b, OpKind::Embedding, {posTable, posIds}));
  return b.reshape(x, {d.batch * d.seq, d.hidden});
}

// The layers' weights together (about 12 hidden^2 floats a layer) against the
// budget, and a layer count a graph can hold: --num-layers 1000000 built
// nodes for minutes before anything was checked.
constexpr int64_t kMaxLayers = 4096;

Status checkLayerWeights(const std::string& name, const Dims& d) {
  if (d.layers > kMaxLayers)
    return makeError("model '" + name + "': num_layers " + std::to_string(d.layers) + " is more than " +
                     std::to_string(kMaxLayers));
  const auto h = static_cast<uint64_t>(d.hidden);
  std::optional<uint64_t> bytes = support::checkedMul(h, h);
  if (bytes) bytes = support::checkedMul(*bytes, 12);
  if (bytes) bytes = support::checkedAdd(*bytes, 13 * h);
  if (bytes) bytes = support::checkedMul(*bytes, static_cast<uint64_t>(d.layers));
  if (bytes) bytes = support::checkedMul(*bytes, 4);  // f32
  const std::string what = "the weight store of model '" + name + "' (" + std::to_string(d.layers) +
                           " layers of hidden_size " + std::to_string(d.hidden) + ")";
  if (!bytes) return makeError(what + ": size overflows");
  return support::checkBudget(what, *bytes);
}

Expected<Dims> transformerDims(const std::string& name, const ZooOptions& options,
                               std::map<std::string, int64_t> defaults) {
  auto p = resolveParams(name, options, std::move(defaults));
  if (!p) return p.error();
  Dims d{options.batchSize, p->at("seq_len"), p->at("hidden_size"), p->at("num_heads"), p->at("num_layers"),
         p->at("vocab_size")};
  if (d.hidden % d.heads != 0)
    return makeError("model '" + name + "': hidden_size " + std::to_string(d.hidden) +
                     " is not a multiple of num_heads " + std::to_string(d.heads));
  // The largest tensors the model declares (and the position ids it fills now),
  // checked before any is built: --seq-len 1000000000 died of bad_alloc.
  const std::pair<const char*, ir::TensorType> largest[] = {
      {"position ids", {ir::DType::I64, {d.batch, d.seq}}},
      {"attention scores", {ir::DType::F32, {d.batch, d.heads, d.seq, d.seq}}},
      {"logits", {ir::DType::F32, {d.batch, d.seq, d.vocab}}},
      {"token embedding", {ir::DType::F32, {d.vocab, d.hidden}}},
      {"hidden states", {ir::DType::F32, {d.batch * d.seq, 4 * d.hidden}}},
  };
  const std::string sizes = "model '" + name + "' (batch " + std::to_string(d.batch) + ", seq_len " +
                            std::to_string(d.seq) + ", hidden_size " + std::to_string(d.hidden) + ", num_heads " +
                            std::to_string(d.heads) + ", vocab_size " + std::to_string(d.vocab) + ")";
  for (const auto& [what, type] : largest)
    if (auto st = ir::checkTensorBudget(what, type); !st) return st.error().withContext(sizes);
  DFC_TRY(checkLayerWeights(name, d));
  return d;
}

}  // namespace

Expected<Model> buildGpt2(const std::string& name, const ZooOptions& options) {
  std::map<std::string, int64_t> defaults = {
      {"num_layers", 12}, {"hidden_size", 768}, {"num_heads", 12}, {"seq_len", 1024}, {"vocab_size", 50257}};
  if (name == "gpt2-mini")
    defaults = {{"num_layers", 2}, {"hidden_size", 64}, {"num_heads", 4}, {"seq_len", 32}, {"vocab_size", 256}};
  auto dims = transformerDims(name, options, defaults);
  if (!dims) return dims.error();
  const Dims& d = *dims;

  Model model;
  model.graph.name = name;
  model.task = "language_model";
  model.numClasses = d.vocab;
  GraphBuilder b(model.graph, options.seed);
  model.image = b.input("input_ids", ir::TensorType{ir::DType::I64, {d.batch, d.seq}});
  ValueId wte = ir::kNoValue, x = ir::kNoValue;
  {
    auto s = b.scope("embeddings");
    x = embeddings(b, model.image, d, wte);
  }
  for (int64_t i = 0; i < d.layers; ++i) {
    auto block = b.scope("h." + std::to_string(i));
    ValueId a = ir::kNoValue, m = ir::kNoValue;
    {
      auto s = b.scope("attn");
      a = attention(b, layerNorm(b, x, d.hidden, "ln_1"), d, true);
    }
    x = b.add(x, a);
    {
      auto s = b.scope("mlp");
      m = mlp(b, layerNorm(b, x, d.hidden, "ln_2"), d);
    }
    x = b.add(x, m);
  }
  {
    auto s = b.scope("ln_f");
    x = layerNorm(b, x, d.hidden, "ln_f");
  }
  {
    // Tied LM head: logits = h @ wte^T, as in GPT-2 (124M parameters for the defaults).
    auto s = b.scope("lm_head");
    model.logits = b.reshape(b.matmul(x, wte, false, true), {d.batch, d.seq, d.vocab});
  }
  if (!b.status()) return b.status().error().withContext("model '" + name + "'");
  model.graph.outputs = {model.logits};
  return model;
}

Expected<Model> buildBert(const std::string& name, const ZooOptions& options) {
  auto dims = transformerDims(name, options,
                              {{"num_layers", 12},
                               {"hidden_size", 768},
                               {"num_heads", 12},
                               {"seq_len", 512},
                               {"vocab_size", 30522},
                               {"num_classes", 2}});
  if (!dims) return dims.error();
  const Dims& d = *dims;
  const int64_t classes = options.params.count("num_classes") ? options.params.at("num_classes") : 2;

  Model model;
  model.graph.name = name;
  model.numClasses = classes;
  GraphBuilder b(model.graph, options.seed);
  model.image = b.input("input_ids", ir::TensorType{ir::DType::I64, {d.batch, d.seq}});
  ValueId wte = ir::kNoValue, x = ir::kNoValue;
  {
    auto s = b.scope("embeddings");
    x = layerNorm(b, embeddings(b, model.image, d, wte), d.hidden, "LayerNorm");
  }
  for (int64_t i = 0; i < d.layers; ++i) {
    auto block = b.scope("layer." + std::to_string(i));
    {
      auto s = b.scope("attention");  // post-LN: x = LN(x + attn(x))
      x = layerNorm(b, b.add(x, attention(b, x, d, false)), d.hidden, "LayerNorm");
    }
    auto s = b.scope("mlp");
    x = layerNorm(b, b.add(x, mlp(b, x, d)), d.hidden, "LayerNorm");
  }
  {
    // Classification on the first token ([CLS]): pooler (dense + tanh in BERT; GELU here) then the classifier.
    auto s = b.scope("classifier");
    ValueId cls = op1(b, OpKind::Slice, {b.reshape(x, {d.batch, d.seq, d.hidden})},
                      {{"axis", int64_t{1}}, {"start", int64_t{0}}, {"end", int64_t{1}}});
    cls = b.reshape(cls, {d.batch, d.hidden});
    ValueId pooled = op1(b, OpKind::Gelu, {linear(b, cls, d.hidden, d.hidden, "pooler")});
    model.logits = linear(b, pooled, d.hidden, classes, "out");
  }
  if (!b.status()) return b.status().error().withContext("model '" + name + "'");
  model.graph.outputs = {model.logits};
  return model;
}

}  // namespace dfc::frontend::zoo
