// Kernel dispatch through a table generated from Ops.def: the factory of op X
// is <Family>Kernels::X (kernels/KernelFamilies.h).
#include "runtime/Kernels.h"

#include <iterator>

#include "runtime/kernels/KernelFamilies.h"

namespace dfc::runtime {
namespace {

constexpr kernels::KernelFactory kFactories[] = {
#define DFC_OP(Enum, name, nin, nout, family, doc) kernels::family##Kernels::Enum,
#include "ir/Ops.def"
#undef DFC_OP
};

}  // namespace

namespace kernels {

std::string firstOutOfRange(const int64_t* ids, int64_t count, int64_t bound, const char* what, const char* where) {
  for (int64_t i = 0; i < count; ++i)
    if (ids[i] < 0 || ids[i] >= bound)
      return std::string(what) + " " + std::to_string(ids[i]) + " at " + where + " " + std::to_string(i) +
             " is outside [0," + std::to_string(bound) + ")";
  return {};
}

bool KernelArgs::allF32() const {
  for (const ir::Tensor* t : in)
    if (t->dtype() != ir::DType::F32) return false;
  for (const ir::Tensor* t : out)
    if (t->dtype() != ir::DType::F32) return false;
  return true;
}

}  // namespace kernels

Expected<KernelPtr> prepareKernel(const ir::Node& node, std::span<const ir::Tensor* const> inputs,
                                  std::span<ir::Tensor* const> outputs) {
  const size_t op = static_cast<size_t>(node.op);
  if (op >= std::size(kFactories)) return makeError("node '" + node.name + "': unknown op " + std::to_string(op));
  const kernels::KernelArgs args{node, inputs, outputs};
  const ir::OpInfo& info = ir::opInfo(node.op);
  if ((info.numInputs >= 0 && inputs.size() != static_cast<size_t>(info.numInputs)) ||
      (info.numOutputs >= 0 && outputs.size() != static_cast<size_t>(info.numOutputs)))
    return args.fail("wrong number of inputs or outputs");
  for (const ir::Tensor* t : inputs)
    if (!t || t->empty()) return args.fail("input tensor has no storage");
  for (const ir::Tensor* t : outputs)
    if (!t || t->empty()) return args.fail("output tensor has no storage");
  return kFactories[op](args);
}

Status runKernel(const ir::Node& node, std::span<const ir::Tensor* const> inputs,
                 std::span<ir::Tensor* const> outputs) {
  auto kernel = prepareKernel(node, inputs, outputs);
  if (!kernel) return kernel.error();
  support::ThreadPool inlinePool(1);
  ExecContext ctx(inlinePool);
  return (*kernel)->run(ctx);
}

}  // namespace dfc::runtime
