#pragma once
// Integer arithmetic as ONNX defines it, without C++'s undefined behaviour:
// results wrap as two's complement (INT64_MIN / -1 is INT64_MIN, % -1 is 0)
// and division by zero gives 0. Shared by the kernels, the constant folder
// (which runs them) and the reference interpreter, so a hostile constant never
// traps (SIGFPE) or overflows at compile or run time.
#include <type_traits>

namespace dfc::runtime {

template <typename T>
using Unsigned = std::make_unsigned_t<T>;

template <typename T>
T wrapAdd(T a, T b) { return static_cast<T>(static_cast<Unsigned<T>>(a) + static_cast<Unsigned<T>>(b)); }
template <typename T>
T wrapSub(T a, T b) { return static_cast<T>(static_cast<Unsigned<T>>(a) - static_cast<Unsigned<T>>(b)); }
template <typename T>
T wrapMul(T a, T b) { return static_cast<T>(static_cast<Unsigned<T>>(a) * static_cast<Unsigned<T>>(b)); }

// Truncating division; x / -1 is -x wrapped (the one quotient that overflows).
template <typename T>
T onnxDiv(T a, T b) {
  if (b == 0) return T{0};
  if (b == T(-1)) return wrapSub(T{0}, a);
  return static_cast<T>(a / b);
}

// Remainder with the dividend's sign (C's %); x % -1 is 0.
template <typename T>
T onnxFmod(T a, T b) {
  if (b == 0 || b == T(-1)) return T{0};
  return static_cast<T>(a % b);
}

// Remainder with the divisor's sign (Python's %).
template <typename T>
T onnxMod(T a, T b) {
  T r = onnxFmod(a, b);
  return r != 0 && ((r < 0) != (b < 0)) ? wrapAdd(r, b) : r;
}

// a^b truncated toward zero (a negative exponent leaves 1, -1 or 0), wrapping;
// by squaring, so a hostile exponent of 10^18 costs 60 steps, not 10^18.
template <typename T>
T onnxPow(T a, T b) {
  if (b < 0) return a == 1 ? T{1} : a == T(-1) ? (b % 2 == 0 ? T{1} : T(-1)) : T{0};
  Unsigned<T> r = 1, base = static_cast<Unsigned<T>>(a);
  for (auto e = static_cast<Unsigned<T>>(b); e > 0; e >>= 1) {
    if (e & 1) r = static_cast<Unsigned<T>>(r * base);
    base = static_cast<Unsigned<T>>(base * base);
  }
  return static_cast<T>(r);
}

}  // namespace dfc::runtime
