// The ops autograd refuses to differentiate: the *_grad ops (no second
// order), the optimizer updates, the decode ops (a compile with --decode is
// --inference) and all_reduce (inserted after autograd, for data parallel).
// Each refusal names the node (notDifferentiable).
#include "autograd/GradientFamilies.h"

namespace dfc::autograd {

#define DFC_REFUSE(Family, Op) \
  Expected<Grads> Family##Grads::Op(const RuleArgs& a) { return notDifferentiable(a); }
DFC_REFUSE(Elementwise, ReluGrad)
DFC_REFUSE(Layout, SliceGrad)
DFC_REFUSE(Loss, SoftmaxCrossEntropyGrad)
DFC_REFUSE(Optimizer, SgdUpdate)
DFC_REFUSE(Optimizer, AdamUpdate)
DFC_REFUSE(Optimizer, MomentumUpdate)
DFC_REFUSE(Conv, Conv2dGradWeight)
DFC_REFUSE(Pool, MaxPool2dGrad)
DFC_REFUSE(Pool, GlobalAvgPoolGrad)
DFC_REFUSE(Norm, BatchNormGrad)
DFC_REFUSE(Norm, LayerNormGrad)
DFC_REFUSE(Transformer, SoftmaxGrad)
DFC_REFUSE(Transformer, GeluGrad)
DFC_REFUSE(Transformer, EmbeddingGrad)
DFC_REFUSE(Decode, KvCacheWrite)
DFC_REFUSE(Decode, DecodeAttention)
DFC_REFUSE(General, AllReduce)
#undef DFC_REFUSE

}  // namespace dfc::autograd
