// Shape rules of the decode family: the KV cache write and the attention of
// a step's queries over the cache (ops documented in Ops.def).
#include "ir/ShapeRules.h"

namespace dfc::ir {
namespace {

// The runtime position: one i64 (the absolute position of the step's first token).
Status requirePosition(const ShapeArgs& a, size_t i) {
  const TensorType& p = *a.in[i];
  if (p.dtype != DType::I64 || p.shape != Shape{1}) return a.fail("pos must be i64[1], got " + p.toString());
  return {};
}

// A cache [B, KVH, N, Dh] in f32.
Status requireCache(const ShapeArgs& a, size_t i, const char* what) {
  const TensorType& c = *a.in[i];
  if (c.dtype != DType::F32 || c.rank() != 4) return a.fail(std::string(what) + " must be f32[B,KVH,N,Dh], got " + c.toString());
  return {};
}

}  // namespace

OutputTypes DecodeShapes::KvCacheWrite(const ShapeArgs& a) {
  DFC_TRY(requireCache(a, 0, "cache"));
  DFC_TRY(requirePosition(a, 2));
  const Shape &cache = a.in[0]->shape, &rows = a.in[1]->shape;
  if (a.in[1]->dtype != DType::F32 || rows.size() != 4 || rows[0] != cache[0] || rows[1] != cache[1] ||
      rows[3] != cache[3] || rows[2] < 1 || rows[2] > cache[2])
    return a.fail("new rows " + a.in[1]->toString() + " do not fit cache " + a.in[0]->toString() +
                  " (expected [B,KVH,T,Dh] with 1 <= T <= N)");
  return std::vector{*a.in[0]};
}

OutputTypes DecodeShapes::DecodeAttention(const ShapeArgs& a) {
  if (a.in.size() != 4 && a.in.size() != 5)
    return a.fail("takes (q, k_cache, v_cache, pos) or (q, k_cache, v_cache, pos, alibi_slopes), got " +
                  std::to_string(a.in.size()) + " inputs");
  DFC_TRY(requireCache(a, 1, "k_cache"));
  DFC_TRY(a.requireSame(1, 2));
  DFC_TRY(requirePosition(a, 3));
  const Shape &q = a.in[0]->shape, &cache = a.in[1]->shape;
  if (a.in[0]->dtype != DType::F32 || q.size() != 4 || q[0] != cache[0] || q[3] != cache[3] || q[2] < 1 ||
      q[2] > cache[2])
    return a.fail("q " + a.in[0]->toString() + " does not match cache " + a.in[1]->toString() +
                  " (expected [B,H,T,Dh] with 1 <= T <= N)");
  if (cache[1] < 1 || q[1] % cache[1] != 0)
    return a.fail("query heads " + std::to_string(q[1]) + " are not a multiple of cache heads " + std::to_string(cache[1]));
  if (a.in.size() == 5 && (a.in[4]->dtype != DType::F32 || a.in[4]->shape != Shape{q[1]}))
    return a.fail("alibi_slopes must be f32[" + std::to_string(q[1]) + "], got " + a.in[4]->toString());
  return std::vector{*a.in[0]};
}

}  // namespace dfc::ir
