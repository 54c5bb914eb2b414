#pragma once
// Tokens of the .dfir text form, each with its line and column for errors.
#include <string>
#include <string_view>
#include <vector>

#include "support/Error.h"

namespace dfc::ir {

enum class TokKind {
  Word,    // bare word: graph, conv2d, f32, role, inf, ...
  Value,   // %name or %"quoted name" (text holds the name without '%')
  Number,  // 12, -3, 1.5e-3, -inf, nan
  String,  // "..." (text holds the unescaped contents)
  Punct,   // one of { } ( ) [ ] , : = @
  Arrow,   // <-
  End,
};

struct Token {
  TokKind kind = TokKind::End;
  std::string text;
  int line = 1;
  int col = 1;
};

// Splits `text` into tokens; the error is "sourceName:LINE:COL: message".
Expected<std::vector<Token>> lexDfir(std::string_view text, const std::string& sourceName);

}  // namespace dfc::ir
