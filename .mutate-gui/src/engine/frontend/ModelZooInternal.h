#pragma once
// Shared by the model zoo's files: hyperparameter parsing and the builders of
// the transformer and vision families.
#include <map>
#include <string>

#include "frontend/GraphBuilder.h"
#include "frontend/ModelZoo.h"

namespace dfc::frontend::zoo {

// Upper bound of every zoo size parameter and the batch size (2^31).
constexpr int64_t kMaxZooParam = int64_t{1} << 31;

// Resolves options.params against `defaults` (the model's known keys): an
// unknown key or a value < 1 fails naming the key.
Expected<std::map<std::string, int64_t>> resolveParams(const std::string& model, const ZooOptions& options,
                                                       std::map<std::string, int64_t> defaults);

// One output of a single-output op (kNoValue after an error).
ir::ValueId op1(GraphBuilder& b, ir::OpKind kind, std::vector<ir::ValueId> in, ir::Attributes attrs = {});
// A Param filled with `value`.
ir::ValueId filledParam(GraphBuilder& b, const std::string& name, ir::Shape shape, float value);

Expected<Model> buildGpt2(const std::string& name, const ZooOptions& options);  // "gpt2", "gpt2-mini"
Expected<Model> buildBert(const std::string& name, const ZooOptions& options);
Expected<Model> buildLlama(const std::string& name, const ZooOptions& options);  // "llama", "llama-tiny"
Expected<Model> buildBloom(const std::string& name, const ZooOptions& options);  // "bloom", "bloom-tiny"
Expected<Model> buildNeox(const std::string& name, const ZooOptions& options);   // "gpt-neox", "neox-tiny"
Expected<Model> buildResnet18(const std::string& name, const ZooOptions& options);

}  // namespace dfc::frontend::zoo
