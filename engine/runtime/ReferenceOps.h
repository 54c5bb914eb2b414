#pragma once
// Internal to the reference interpreter: the ops written out in their own
// files (transformer, vision, Adam) so Reference.cpp stays readable.
#include <vector>

#include "ir/Graph.h"
#include "support/Error.h"

namespace dfc::runtime::reference {

// global_avg_pool, batch_norm (+grads) and adam_update.
Status evalVisionOp(const ir::Node& n, const std::vector<const ir::Tensor*>& in, std::vector<ir::Tensor>& out);
Status evalTransformerOp(const ir::Node& n, const std::vector<const ir::Tensor*>& in, std::vector<ir::Tensor>& out);

}  // namespace dfc::runtime::reference
