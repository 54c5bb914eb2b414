#pragma once
// Building blocks shared by the zoo's transformer families (gpt2, bert, llama,
// bloom, gpt-neox). Hidden states stay 2-D [B*T, D] so linears are plain
// matmuls; attention works on [B, H, T, Dh] with batch_matmul. Every block is
// composed of existing IR ops (no op of its own), so autograd, the reference
// interpreter, the kernels and the cost model already cover it.
#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "frontend/ModelZooInternal.h"

namespace dfc::frontend::zoo {

struct Dims {
  int64_t batch, seq, hidden, heads, layers, vocab;
  int64_t kvHeads = 0;       // grouped-query attention: key/value heads (heads when not grouped)
  int64_t intermediate = 0;  // MLP width (4 * hidden unless the model sets it)
  int64_t mlpMatrices = 2;   // 2: up + down; 3: gated (SwiGLU: gate + up + down)
  // A decode step (ZooOptions::kvCacheLen > 0): seq is ZooOptions::decodeTokens
  // (1: the new token; more: tokens at consecutive positions), each
  // layer keeps a K and a V cache of cacheLen rows (ir/KvCache.h), and
  // positions come from the i64[1] input `position` (set by tokenInputs).
  int64_t cacheLen = 0;
  ir::ValueId position = ir::kNoValue;   // the step's first position, i64 [1]
  ir::ValueId positions = ir::kNoValue;  // all its positions, i64 [seq] (position itself when seq is 1)
  int64_t headDim() const { return hidden / heads; }
  bool decode() const { return cacheLen > 0; }
  int64_t maxPositions() const { return decode() ? cacheLen : seq; }  // rows of position tables
};

// Resolves the model's parameters against `defaults` and checks them (divisible
// heads, tensor sizes and the weight store against the memory budget) before any
// node is built. Keys "num_kv_heads" and "intermediate_size" are read when the
// defaults name them.
Expected<Dims> transformerDims(const std::string& name, const ZooOptions& options,
                               std::map<std::string, int64_t> defaults, int64_t mlpMatrices = 2);

// The model's inputs: token ids "input_ids" i64[B, T] (its `image`) and, for a
// decode step, the step's position "position" i64[1] (into d.position).
void tokenInputs(GraphBuilder& b, Model& model, Dims& d);

// Parameters drawn with the GPT-2 / BERT initializer range (std 0.02).
ir::ValueId initParam(GraphBuilder& b, const std::string& name, ir::Shape shape);
// y = x @ W + b with W [in, out] (GPT-2's Conv1D layout); weights "<name>.weight".
ir::ValueId linear(GraphBuilder& b, ir::ValueId x, int64_t in, int64_t out, const std::string& name);
// y = x @ W without bias (Llama's projections).
ir::ValueId projection(GraphBuilder& b, ir::ValueId x, int64_t in, int64_t out, const std::string& name);
ir::ValueId layerNorm(GraphBuilder& b, ir::ValueId x, int64_t d, const std::string& name);
// RMSNorm over the last axis of x [N, d]: x / sqrt(mean(x^2) + eps) * weight.
ir::ValueId rmsNorm(GraphBuilder& b, ir::ValueId x, int64_t d, const std::string& name);

// Rotary position embedding tables: cos and sin Consts [T, Dh] (rotate-half
// convention, base 10000), made once and shared by every layer. A decode step
// gathers the row at its position from tables of cacheLen rows: [1, Dh].
struct Rotary {
  ir::ValueId cos = ir::kNoValue, sin = ir::kNoValue;
};
Rotary rotaryTables(GraphBuilder& b, const Dims& d);
// Rotates x [B, heads, T, Dh]: x * cos + rotate_half(x) * sin.
ir::ValueId applyRotary(GraphBuilder& b, ir::ValueId x, const Rotary& r, int64_t dh);

// ALiBi bias Const [H, 1, T]: slope_h * j for key position j. Equal, after the
// row-wise shift softmax ignores, to BLOOM's -slope_h * (i - j). A decode step
// gets the slopes f32[H] instead (decode_attention adds slope_h * j itself).
ir::ValueId alibiBias(GraphBuilder& b, const Dims& d);

// Scaled dot-product attention of q [B, H, T, Dh] over k, v [B, KVH, T, Dh]
// (each key/value head serves H / KVH query heads), causal when asked, with an
// optional additive score bias; returns the heads merged to [B*T, D]. A decode
// step writes k and v into the layer's caches at the position and attends over
// the cache rows written so far (decode_attention; the bias is ALiBi slopes).
ir::ValueId attend(GraphBuilder& b, ir::ValueId q, ir::ValueId k, ir::ValueId v, const Dims& d, bool causal,
                   ir::ValueId scoreBias = ir::kNoValue);
// [B*T, heads*Dh] -> [B, T, heads, Dh]
ir::ValueId splitHeads(GraphBuilder& b, ir::ValueId x, const Dims& d, int64_t heads);
// [B, T, heads, Dh] -> [B, heads, T, Dh]
ir::ValueId headsFirst(GraphBuilder& b, ir::ValueId x);

// Multi-head self-attention on x [B*T, D] with one fused QKV linear [D, 3D]
// (GPT-2's c_attn / c_proj), rotary q and k when `rotary` is given.
ir::ValueId fusedQkvAttention(GraphBuilder& b, ir::ValueId x, const Dims& d, bool causal,
                              ir::ValueId scoreBias = ir::kNoValue, const Rotary* rotary = nullptr);
// GELU MLP: linear to the intermediate width, gelu, linear back (c_fc / c_proj).
ir::ValueId geluMlp(GraphBuilder& b, ir::ValueId x, const Dims& d);

// Token embedding ("wte" or `tableName`) of ids [B, T] -> [B*T, D]; the table is returned for tied heads.
ir::ValueId tokenEmbedding(GraphBuilder& b, ir::ValueId ids, const Dims& d, ir::ValueId& table,
                           const std::string& tableName = "wte");
// Logits [B, T, V] from h [B*T, D]: tied (h @ table^T) when `tiedTable` is set, else an untied [D, V] head.
ir::ValueId lmHead(GraphBuilder& b, ir::ValueId h, const Dims& d, ir::ValueId tiedTable);

// A language model's skeleton: the i64 ids input and the task fields.
Model languageModel(const std::string& name, const Dims& d);

// Rotary embeddings pair dimension i with i + Dh/2: the head size must be even.
Status checkRotary(const std::string& name, const Dims& d);

// A block's branch: given the block input, its output before the residual add (its norm included).
using Branch = std::function<ir::ValueId(GraphBuilder&, ir::ValueId)>;

// The decoder layers "<prefix>0".."<prefix>L-1", each with an attention and an
// MLP branch under their scopes: sequential (x += attn(x); x += mlp(x)) or, for
// GPT-NeoX, parallel (x + attn(x) + mlp(x)).
struct DecoderBlock {
  std::string prefix;
  std::string attnScope, mlpScope;
  Branch attention = nullptr, mlp = nullptr;
  bool parallel = false;
};
ir::ValueId decoderLayers(GraphBuilder& b, ir::ValueId x, const Dims& d, const DecoderBlock& block);

// The final norm and the LM head, each under its scope, then the model's output;
// the builder's first error (naming the model) if any. `model` is the graph `b` builds.
struct LmHead {
  std::string normScope;
  Branch norm = nullptr;
  std::string headScope;
  ir::ValueId tiedTable = ir::kNoValue;  // kNoValue: an untied [D, V] head
};
Status finishLanguageModel(GraphBuilder& b, Model& model, ir::ValueId x, const Dims& d, const LmHead& head);

}  // namespace dfc::frontend::zoo
