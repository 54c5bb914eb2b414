#pragma once
// The frontend stage's input: a zoo model, a .dfir text-IR file or an ONNX file.
#include "driver/compile/CompileOptions.h"
#include "frontend/ModelZoo.h"
#include "support/Error.h"

namespace dfc::driver {

// The first graph input is the batch, the first output the logits. A .dfir
// model's params without data get PyTorch-style uniform weights from the seed.
Expected<frontend::Model> loadModel(const CompileOptions& options);

}  // namespace dfc::driver
