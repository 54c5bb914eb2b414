#pragma once
// `dfc run --inference --input NAME=FILE|random`: a PEF compiled from any
// model run once on inputs the user gives (.npy or ONNX TensorProto .pb files,
// or seeded random data), each output summarized and, with --output-dir,
// written as DIR/NAME.npy. What the CLI, dfstudio and the run stage share.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ir/Graph.h"
#include "ir/Tensor.h"
#include "pef/Pef.h"
#include "support/Error.h"

namespace dfc::driver {

inline constexpr const char* kRandomInput = "random";

struct InputBinding {
  std::string name;    // a graph input
  std::string source;  // a .npy or .pb file, or kRandomInput
};

// "NAME=FILE" or "NAME=random" (split at the first '='); errors name --input.
Expected<InputBinding> parseInputBinding(const std::string& text);

// The names a user knows a PEF's inputs and outputs by, in the graph's order:
// the ONNX model's own (PefMeta::inputNames/outputNames) where recorded,
// else the values' names.
std::vector<std::string> inputNamesOf(const pef::Pef& pef);
std::vector<std::string> outputNamesOf(const pef::Pef& pef);

struct BoundInput {
  ir::ValueId value = ir::kNoValue;
  ir::Tensor tensor;
  std::string from;  // "a.npy", "random (seed 7)"
};

// Every graph input bound, in the graph's order (`names`: what the user calls
// graph.inputs, e.g. inputNamesOf; empty: the values' names): a missing or unknown name, a
// name given twice, a file that cannot be read, or a type other than the
// PEF's is refused, naming the input. Random inputs draw from one stream
// seeded with `seed`, in graph order: f32 uniform in [0, 1), integers in
// [0, 4), bools 0 or 1.
Expected<std::vector<BoundInput>> bindInputs(const ir::Graph& graph, const std::vector<InputBinding>& bindings,
                                             uint64_t seed, std::vector<std::string> names = {});

// "min -1.5, max 2, mean 0.25, first [1, -1.5, 2]" (first values: up to 6).
std::string summarizeTensor(const ir::Tensor& tensor);

// `name` as a file name: [A-Za-z0-9_.-] kept, every other byte %XX, and a
// leading '.' escaped too (no hidden files, no "..").
std::string safeFileName(const std::string& name);

using NamedTensor = std::pair<std::string, ir::Tensor>;
// Each output as dir/safeFileName(name).npy: the folder is made if missing,
// every target checked before any is written (a symlink out of the folder,
// a directory or a device there is refused), each file written to a temp
// file and renamed. Returns the paths written.
Expected<std::vector<std::string>> writeOutputs(const std::string& dir, const std::vector<NamedTensor>& outputs);
// The same checks without writing (before a run, so a bad folder costs no run).
Status checkOutputTargets(const std::string& dir, const std::vector<std::string>& names);

}  // namespace dfc::driver
