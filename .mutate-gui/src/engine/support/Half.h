#pragma once
// IEEE binary16 (ONNX FLOAT16) and bfloat16 <-> float, rounding to nearest
// even: how float16 tensors are read and how values of float16 type are rounded at
// operator boundaries (they are computed in f32, as ONNX Runtime's CPU
// provider computes them).
#include <cstdint>
#include <cstring>

namespace dfc::support {

inline float halfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu, bits = 0;
  if (exp == 0x1F) bits = sign | 0x7F800000u | (mant << 13);  // inf, nan
  else if (exp != 0) bits = sign | ((exp + 112) << 23) | (mant << 13);
  else if (mant == 0) bits = sign;
  else {  // subnormal: normalize
    int shift = 0;
    while ((mant & 0x400u) == 0) mant <<= 1, ++shift;
    bits = sign | ((113 - static_cast<uint32_t>(shift)) << 23) | ((mant & 0x3FFu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline uint16_t floatToHalf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t absBits = bits & 0x7FFFFFFFu;
  if (absBits >= 0x7F800000u) return static_cast<uint16_t>(sign | 0x7C00u | (absBits > 0x7F800000u ? 0x200u : 0u));
  if (absBits >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds past 65504: inf
  if (absBits < 0x38800000u) {  // subnormal or zero in half: add 0.5 and let the FPU round to even
    float a;
    std::memcpy(&a, &absBits, sizeof a);
    const float scaled = a + 0.5f;  // 0.5 = 2^-1: the half subnormal ulp 2^-24 lands on float's last bits
    uint32_t s;
    std::memcpy(&s, &scaled, sizeof s);
    return static_cast<uint16_t>(sign | (s - 0x3F000000u));
  }
  const uint32_t mantOdd = (absBits >> 13) & 1u;
  const uint32_t rounded = absBits + 0xC8000FFFu + mantOdd;  // rebias exponent (-112 << 23) and round to even
  return static_cast<uint16_t>(sign | (rounded >> 13));
}

inline float roundToHalf(float f) { return halfToFloat(floatToHalf(f)); }

// bfloat16 (ONNX BFLOAT16): float's upper 16 bits. Rounded to nearest even as
// ONNX Runtime rounds float -> bfloat16; a NaN stays a (quiet) NaN.
inline float bfloat16ToFloat(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline uint16_t floatToBfloat16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  const uint32_t lsb = (bits >> 16) & 1u;
  return static_cast<uint16_t>((bits + 0x7FFFu + lsb) >> 16);
}

inline float roundToBfloat16(float f) { return bfloat16ToFloat(floatToBfloat16(f)); }

}  // namespace dfc::support
