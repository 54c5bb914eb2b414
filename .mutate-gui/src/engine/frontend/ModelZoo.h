#pragma once
// The built-in model zoo. Models are built with GraphBuilder; every layer is
// a hyperfunction scope ("conv1", "fc2") so sections and traces group by it.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/Graph.h"
#include "support/Error.h"

namespace dfc::frontend {

// A forward (inference) graph with its image input and logits output marked.
// Language models: `image` is the i64 [B, T] token ids ("input_ids"), logits
// are f32 [B, T, V] and numClasses is the vocabulary size V.
struct Model {
  ir::Graph graph;             // graph.inputs = {image}, graph.outputs = {logits}
  ir::ValueId image = ir::kNoValue;
  ir::ValueId logits = ir::kNoValue;
  int64_t numClasses = 0;
  std::string task = "classification";  // "classification" | "language_model"
  // ONNX models: the model's own names of graph.inputs and graph.outputs (pef::PefMeta::inputNames).
  std::vector<std::string> inputNames, outputNames;
};

// Build options. `params` overrides model hyperparameters; the keys a model
// knows: num_layers, hidden_size, num_heads, seq_len, vocab_size, num_classes
// (transformers; llama also num_kv_heads, intermediate_size); image_size, in_channels, num_classes (resnet18). Unknown keys
// or bad values fail with an error naming the key.
struct ZooOptions {
  int64_t batchSize = 32;
  uint64_t seed = 42;
  std::map<std::string, int64_t> params;
  // > 0: build the decoder's single-token decode step with KV caches of this
  // many rows (gpt2, llama, bloom, gpt-neox families; others refuse it). The
  // weights equal those of the full-sequence model with the same seed.
  int64_t kvCacheLen = 0;
  // With kvCacheLen: tokens of one sequence each step takes, at positions
  // position..position+T-1 (a speculative verification, or a chunk of prompt).
  int64_t decodeTokens = 1;
};

constexpr int64_t kMaxDecodeTokens = 64;

// {"logreg", "mlp", "lenet", "gpt2", "gpt2-mini", "bert", "resnet18", "llama", "llama-tiny", "bloom",
//  "bloom-tiny", "gpt-neox", "neox-tiny"}
std::vector<std::string> zooModelNames();
// The zoo's decoders (gpt2, llama, bloom, gpt-neox and their tiny forms): what ZooOptions::kvCacheLen takes.
bool isZooDecoder(const std::string& name);
// Builds `name` for batch size `batchSize` with weights initialized from `seed`
// (deterministic). Unknown name: an error listing the zoo.
Expected<Model> buildZooModel(const std::string& name, int64_t batchSize, uint64_t seed = 42);
Expected<Model> buildZooModel(const std::string& name, const ZooOptions& options);

}  // namespace dfc::frontend
