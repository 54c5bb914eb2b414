#pragma once
// A small training graph that uses every op in Ops.def, every attribute type,
// scopes, roles, consts and updates. Shared by the IR and PEF tests.
#include <cstring>
#include <stdexcept>

#include "ir/Graph.h"
#include "ir/ShapeInference.h"

namespace dfc::ir::test {

inline Tensor filled(TensorType type, float start) {
  Tensor t(std::move(type));
  for (int64_t i = 0; i < t.numElements(); ++i) {
    float v = start + 0.37f * static_cast<float>(i) * (i % 2 ? -1.f : 1.f);
    if (t.dtype() == DType::F32) t.data<float>()[i] = v;
    if (t.dtype() == DType::I64) t.data<int64_t>()[i] = -i * 3;
  }
  return t;
}

// Adds a node whose outputs get the types shape inference gives.
inline std::vector<ValueId> add(Graph& g, OpKind op, const std::string& name, std::vector<ValueId> in,
                                std::vector<std::string> outs, Attributes attrs = {}, std::string scope = {},
                                NodeRole role = NodeRole::Forward) {
  Node probe;
  probe.op = op;
  probe.name = name;
  probe.inputs = in;
  probe.attrs = attrs;
  auto types = inferOutputTypes(g, probe);
  if (!types) throw std::runtime_error(types.error().message());
  std::vector<ValueId> ids;
  for (size_t i = 0; i < outs.size(); ++i) ids.push_back(g.addValue(outs[i], (*types)[i], ValueKind::Intermediate));
  g.addNode(op, name, in, ids, std::move(attrs), std::move(scope), role);
  return ids;
}

inline Graph sampleGraph() {
  using V = std::vector<int64_t>;
  const auto B = NodeRole::Backward;
  const auto O = NodeRole::Optimizer;
  Graph g;
  g.name = "every_op";
  ValueId x = g.addInput("data/x_0", {DType::F32, {2, 1, 6, 6}});
  ValueId labels = g.addInput("labels", {DType::I64, {2}});
  ValueId w = g.addParam("conv1.weight", filled({DType::F32, {3, 1, 3, 3}}, 0.5f));
  ValueId b = g.addParam("conv1.bias", filled({DType::F32, {3}}, -1.25f));
  ValueId fcw = g.addParam("fc.weight", filled({DType::F32, {27, 4}}, 1e-7f));
  ValueId conv = add(g, OpKind::Conv2d, "conv1.conv", {x, w}, {"conv1.out"},
                     {{"stride", V{1, 1}}, {"pad", V{1, 1}}, {"note", std::string("say \"hi\"\n")}}, "features/conv1")[0];
  ValueId ba = add(g, OpKind::BiasAdd, "conv1.bias_add", {conv, b}, {"conv1.biased"}, {}, "features/conv1")[0];
  ValueId r = add(g, OpKind::Relu, "relu1", {ba}, {"relu1.out"}, {}, "features")[0];
  ValueId p = add(g, OpKind::MaxPool2d, "pool1", {r}, {"pool1.out"}, {{"kernel", V{2, 2}}, {"stride", V{2, 2}}})[0];
  ValueId flat = add(g, OpKind::Reshape, "flatten", {p}, {"flat"}, {{"shape", V{2, -1}}})[0];
  ValueId logits = add(g, OpKind::MatMul, "fc", {flat, fcw}, {"logits"}, {{"trans_a", int64_t{0}}, {"trans_b", int64_t{0}}})[0];
  add(g, OpKind::Softmax, "probs", {logits}, {"probs"}, {{"axis", int64_t{-1}}});
  ValueId sum = add(g, OpKind::Add, "twice", {logits, logits}, {"twice"})[0];
  ValueId diff = add(g, OpKind::Sub, "diff", {sum, logits}, {"diff"})[0];
  ValueId prod = add(g, OpKind::Mul, "prod", {diff, logits}, {"prod"})[0];
  add(g, OpKind::Scale, "half", {prod}, {"half"}, {{"alpha", -0.5}, {"exact", 1.0}, {"tiny", 1e-300}});
  add(g, OpKind::ReduceSum, "rowsum", {prod}, {"rowsum"}, {{"axes", V{1}}, {"keepdims", int64_t{1}}, {"empty", V{}}});
  // The general ops (ONNX import): broadcasting, any dtype.
  ValueId sq = add(g, OpKind::Unary, "g.sqrt", {logits}, {"g.sqrt"}, {{"fn", std::string("sqrt")}})[0];
  ValueId row = add(g, OpKind::Reduce, "g.max", {sq}, {"g.max"}, {{"fn", std::string("max")}, {"axes", V{1}}, {"keepdims", int64_t{1}}})[0];
  ValueId bdiv = add(g, OpKind::Binary, "g.div", {sq, row}, {"g.div"}, {{"fn", std::string("div")}})[0];
  ValueId less = add(g, OpKind::Binary, "g.less", {bdiv, sq}, {"g.less"}, {{"fn", std::string("less")}})[0];
  ValueId sel = add(g, OpKind::Where, "g.where", {less, bdiv, sq}, {"g.where"})[0];
  ValueId ids = add(g, OpKind::Cast, "g.cast", {labels}, {"g.ids"}, {{"to", std::string("i32")}})[0];
  ValueId gat = add(g, OpKind::Gather, "g.gather", {sel, ids}, {"g.gather"}, {{"axis", int64_t{0}}})[0];
  ValueId cat = add(g, OpKind::Concat, "g.concat", {gat, sel}, {"g.concat"}, {{"axis", int64_t{0}}})[0];
  add(g, OpKind::StridedSlice, "g.slice", {cat}, {"g.slice"}, {{"starts", V{3, 0}}, {"ends", V{-1, 4}}, {"steps", V{-2, 1}}});
  add(g, OpKind::Expand, "g.expand", {row}, {"g.expand"}, {{"shape", V{3, 2, 4}}});
  add(g, OpKind::Conv, "g.conv", {x, w}, {"g.conv"}, {{"strides", V{2, 1}}, {"pads", V{1, 0, 0, 1}}, {"dilations", V{1, 2}}, {"group", int64_t{1}}});
  add(g, OpKind::Pool, "g.pool", {x}, {"g.pool"}, {{"fn", std::string("avg")}, {"kernel", V{3, 2}}, {"strides", V{2, 2}},
      {"pads", V{1, 1, 1, 1}}, {"ceil_mode", int64_t{1}}, {"count_include_pad", int64_t{0}}});
  // Composite, norm and transformer ops (kept tiny so the text form stays short).
  ValueId linW = g.addParam("lin.weight", filled({DType::F32, {3, 4}}, 0.25f));
  ValueId linB = g.addParam("lin.bias", filled({DType::F32, {3}}, 0.1f));
  add(g, OpKind::Linear, "lin", {logits, linW, linB}, {"lin.out"});
  ValueId bnG = g.addParam("bn.gamma", filled({DType::F32, {3}}, 1.f));
  ValueId bnB = g.addParam("bn.beta", filled({DType::F32, {3}}, 0.f));
  add(g, OpKind::BatchNorm, "bn", {r, bnG, bnB}, {"bn.out"}, {{"epsilon", 1e-5}}, "features");
  ValueId bnMean = g.addConst("bn.running_mean", filled({DType::F32, {3}}, 0.f));
  ValueId bnVar = g.addConst("bn.running_var", filled({DType::F32, {3}}, 1.f));
  auto bnRun = add(g, OpKind::BatchNorm, "bn.running", {r, bnG, bnB, bnMean, bnVar},
                   {"bn.running.out", "bn.running_mean.new", "bn.running_var.new"},
                   {{"epsilon", 1e-5}, {"momentum", 0.1}, {"training", int64_t{1}}}, "features");
  ValueId gap = add(g, OpKind::GlobalAvgPool, "gap", {r}, {"gap.out"}, {}, "features")[0];
  ValueId table = g.addParam("emb.table", filled({DType::F32, {5, 4}}, 0.02f));
  ValueId emb = add(g, OpKind::Embedding, "emb", {table, labels}, {"emb.out"}, {}, "block")[0];
  ValueId e3 = add(g, OpKind::Reshape, "emb.seq", {emb}, {"emb.seq"}, {{"shape", V{1, 2, 4}}}, "block")[0];
  ValueId att = add(g, OpKind::BatchMatMul, "attn.scores", {e3, e3}, {"attn.scores"},
                    {{"trans_a", int64_t{0}}, {"trans_b", int64_t{1}}}, "block/attn")[0];
  ValueId masked = add(g, OpKind::CausalMask, "attn.mask", {att}, {"attn.masked"}, {{"fill", -1e9}}, "block/attn")[0];
  ValueId sm = add(g, OpKind::Softmax, "attn.probs", {masked}, {"attn.probs"}, {{"axis", int64_t{-1}}}, "block/attn")[0];
  ValueId ctx = add(g, OpKind::BatchMatMul, "attn.ctx", {sm, e3}, {"attn.ctx"}, {}, "block/attn")[0];
  add(g, OpKind::Transpose, "attn.t", {ctx}, {"attn.t"}, {{"perm", V{0, 2, 1}}}, "block/attn");
  ValueId sl = add(g, OpKind::Slice, "attn.slice", {ctx}, {"attn.slice"},
                   {{"axis", int64_t{2}}, {"start", int64_t{1}}, {"end", int64_t{3}}}, "block/attn")[0];
  ValueId ge = add(g, OpKind::Gelu, "mlp.gelu", {ctx}, {"mlp.gelu"}, {}, "block/mlp")[0];
  ValueId lnG = g.addParam("ln.gamma", filled({DType::F32, {4}}, 1.f));
  ValueId lnB = g.addParam("ln.beta", filled({DType::F32, {4}}, 0.f));
  ValueId ln = add(g, OpKind::LayerNorm, "ln", {ge, lnG, lnB}, {"ln.out"}, {{"epsilon", 1e-5}}, "block")[0];
  // A decode step's KV cache: a Const written at the position, read by the attention, kept by a state update.
  ValueId kvRows = add(g, OpKind::Reshape, "decode.rows", {e3}, {"decode.rows"}, {{"shape", V{1, 2, 1, 4}}}, "block/decode")[0];
  ValueId kCache = g.addConst("decode.k_cache", filled({DType::F32, {1, 2, 3, 4}}, 0.f));
  ValueId decodePos = g.addConst("decode.position", filled({DType::I64, {1}}, 0.f));
  ValueId kNext = add(g, OpKind::KvCacheWrite, "decode.k_write", {kCache, kvRows, decodePos}, {"decode.k_cache.new"}, {},
                      "block/decode")[0];
  add(g, OpKind::DecodeAttention, "decode.attn", {kvRows, kNext, kNext, decodePos}, {"decode.ctx"}, {{"scale", 0.5}},
      "block/decode");
  ValueId loss = add(g, OpKind::SoftmaxCrossEntropy, "loss", {logits, labels}, {"loss"})[0];
  ValueId lr = g.addInput("lr", {DType::F32, {}});  // an input declared between nodes keeps its id
  ValueId vel = g.addConst("fc.weight.velocity", filled({DType::F32, {27, 4}}, 0.f));
  ValueId adamM = g.addConst("emb.table.m", filled({DType::F32, {5, 4}}, 0.f));
  ValueId adamV = g.addConst("emb.table.v", filled({DType::F32, {5, 4}}, 0.f));
  ValueId step = g.addConst("adam.step", filled({DType::F32, {}}, 1.f));
  g.addConst("class_ids", filled({DType::I64, {3}}, 0.f));
  ValueId dlogits = add(g, OpKind::SoftmaxCrossEntropyGrad, "loss.grad", {logits, labels}, {"logits.grad"}, {}, "", B)[0];
  ValueId dfcw = add(g, OpKind::MatMul, "fc.grad_w", {flat, dlogits}, {"fc.weight.grad"}, {{"trans_a", int64_t{1}}}, "", B)[0];
  ValueId dflat = add(g, OpKind::MatMul, "fc.grad_x", {dlogits, fcw}, {"flat.grad"}, {{"trans_b", int64_t{1}}}, "", B)[0];
  ValueId dp = add(g, OpKind::Reshape, "flatten.grad", {dflat}, {"pool1.out.grad"}, {{"shape", V{2, 3, 3, 3}}}, "", B)[0];
  ValueId dr = add(g, OpKind::MaxPool2dGrad, "pool1.grad", {dp, r}, {"relu1.out.grad"},
                   {{"kernel", V{2, 2}}, {"stride", V{2, 2}}}, "", B)[0];
  ValueId dba = add(g, OpKind::ReluGrad, "relu1.grad", {dr, ba}, {"conv1.biased.grad"}, {}, "features", B)[0];
  ValueId dw = add(g, OpKind::Conv2dGradWeight, "conv1.grad_w", {dba, x}, {"conv1.weight.grad"},
                   {{"stride", V{1, 1}}, {"pad", V{1, 1}}, {"weight_shape", V{3, 1, 3, 3}}}, "features/conv1", B)[0];
  add(g, OpKind::Conv2dGradInput, "conv1.grad_x", {dba, w}, {"data/x_0.grad"},
      {{"stride", V{1, 1}}, {"pad", V{1, 1}}, {"input_shape", V{2, 1, 6, 6}}}, "features/conv1", B);
  add(g, OpKind::SoftmaxGrad, "attn.probs.grad", {masked, sm}, {"attn.probs.grad"}, {}, "block/attn", B);
  add(g, OpKind::SliceGrad, "attn.slice.grad", {sl}, {"attn.slice.grad"},
      {{"axis", int64_t{2}}, {"start", int64_t{1}}, {"input_shape", V{1, 2, 4}}}, "block/attn", B);
  auto dln = add(g, OpKind::LayerNormGrad, "ln.grad", {ln, ge, lnG}, {"mlp.gelu.grad", "ln.gamma.grad", "ln.beta.grad"},
                 {{"epsilon", 1e-5}}, "block", B);
  add(g, OpKind::GeluGrad, "mlp.gelu_grad", {dln[0], ctx}, {"attn.ctx.grad"}, {}, "block/mlp", B);
  ValueId dtable = add(g, OpKind::EmbeddingGrad, "emb.grad", {emb, labels}, {"emb.table.grad"},
                       {{"num_embeddings", int64_t{5}}}, "block", B)[0];
  ValueId dgap = add(g, OpKind::GlobalAvgPoolGrad, "gap.grad", {gap}, {"gap.in.grad"},
                     {{"input_shape", V{2, 3, 6, 6}}}, "features", B)[0];
  add(g, OpKind::BatchNormGrad, "bn.grad", {dgap, r, bnG}, {"bn.in.grad", "bn.gamma.grad", "bn.beta.grad"},
      {{"epsilon", 1e-5}}, "features", B);
  // Data parallel: one gradient bucket averaged over the ranks before the optimizer reads it.
  auto reduced = add(g, OpKind::AllReduce, "allreduce_bucket0", {dw, dfcw},
                     {"conv1.weight.grad.allreduce", "fc.weight.grad.allreduce"}, {{"bucket", int64_t{0}}},
                     "gradient_reduce", NodeRole::Reduce);
  dw = reduced[0];
  dfcw = reduced[1];
  const auto A = NodeRole::Accumulate;
  ValueId dwSum = g.addConst("conv1.weight.grad_sum", filled({DType::F32, {3, 1, 3, 3}}, 0.f));
  ValueId dwNext = add(g, OpKind::Add, "conv1.weight.grad_accumulate", {dwSum, dw}, {"conv1.weight.grad_sum.new"},
                       {{"accumulation_steps", int64_t{2}}}, "", A)[0];
  ValueId wNew = add(g, OpKind::SgdUpdate, "conv1.weight.sgd", {w, dw, lr}, {"conv1.weight.new"},
                     {{"weight_decay", 1e-4}}, "", O)[0];
  auto mom = add(g, OpKind::MomentumUpdate, "fc.weight.momentum", {fcw, dfcw, vel, lr},
                 {"fc.weight.new", "fc.weight.velocity.new"}, {{"momentum", 0.9}, {"weight_decay", 0.0}}, "", O);
  auto adam = add(g, OpKind::AdamUpdate, "emb.table.adam", {table, dtable, adamM, adamV, lr, step},
                  {"emb.table.new", "emb.table.m.new", "emb.table.v.new"},
                  {{"beta1", 0.9}, {"beta2", 0.999}, {"epsilon", 1e-8}, {"weight_decay", 0.0}}, "", O);
  g.outputs = {loss, logits};
  g.updates = {{w, wNew},       {fcw, mom[0]},         {vel, mom[1]},          {table, adam[0]}, {adamM, adam[1]},
               {adamV, adam[2]}, {bnMean, bnRun[1]}, {bnVar, bnRun[2]}, {dwSum, dwNext}, {kCache, kNext}};
  return g;
}

inline bool sameTensor(const Tensor& a, const Tensor& b) {
  if (a.isDeferred() || b.isDeferred())
    return a.type() == b.type() && a.isDeferred() && b.isDeferred() && *a.recipe() == *b.recipe();
  return a.type() == b.type() && !a.empty() && !b.empty() && std::memcmp(a.bytes(), b.bytes(), a.byteSize()) == 0;
}

// Field-by-field equality; returns "" or the first difference.
inline std::string graphDiff(const Graph& a, const Graph& b, bool withInitializers) {
  if (a.name != b.name) return "name";
  if (a.values.size() != b.values.size()) return "value count";
  for (size_t i = 0; i < a.values.size(); ++i) {
    const Value &x = a.values[i], &y = b.values[i];
    if (x.id != y.id || x.name != y.name || !(x.type == y.type) || x.kind != y.kind || x.producer != y.producer)
      return "value " + x.name;
  }
  if (a.nodes.size() != b.nodes.size()) return "node count";
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const Node &x = a.nodes[i], &y = b.nodes[i];
    if (x.id != y.id || x.op != y.op || x.name != y.name || x.inputs != y.inputs || x.outputs != y.outputs ||
        x.attrs != y.attrs || x.scope != y.scope || x.role != y.role)
      return "node " + x.name;
  }
  if (a.inputs != b.inputs) return "inputs";
  if (a.outputs != b.outputs) return "outputs";
  if (a.updates.size() != b.updates.size()) return "update count";
  for (size_t i = 0; i < a.updates.size(); ++i)
    if (a.updates[i].target != b.updates[i].target || a.updates[i].newValue != b.updates[i].newValue) return "update";
  if (withInitializers) {
    if (a.initializers.size() != b.initializers.size()) return "initializer count";
    for (const auto& [id, t] : a.initializers) {
      auto it = b.initializers.find(id);
      if (it == b.initializers.end() || !sameTensor(t, it->second)) return "initializer " + a.values[static_cast<size_t>(id)].name;
    }
  }
  return "";
}

}  // namespace dfc::ir::test
