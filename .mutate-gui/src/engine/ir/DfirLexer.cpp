#include "ir/DfirLexer.h"

namespace dfc::ir {
namespace {

bool isNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '/';
}
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& source) : m_text(text), m_source(source) {}
  Expected<std::vector<Token>> run();

 private:
  char peek(size_t ahead = 0) const { return m_pos + ahead < m_text.size() ? m_text[m_pos + ahead] : '\0'; }
  void advance() {
    if (m_text[m_pos] == '\n') {
      ++m_line;
      m_col = 1;
    } else {
      ++m_col;
    }
    ++m_pos;
  }
  Error fail(int line, int col, const std::string& msg) const {
    return makeError(m_source + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + msg);
  }
  Status lexString(Token& tok);

  std::string_view m_text;
  const std::string& m_source;
  size_t m_pos = 0;
  int m_line = 1;
  int m_col = 1;
};

Status Lexer::lexString(Token& tok) {
  advance();  // opening quote
  while (true) {
    if (m_pos >= m_text.size() || peek() == '\n') return fail(tok.line, tok.col, "unterminated string");
    char c = peek();
    if (c == '"') {
      advance();
      return {};
    }
    if (c != '\\') {
      tok.text += c;
      advance();
      continue;
    }
    int line = m_line, col = m_col;
    advance();
    char e = peek();
    if (e == 'n') tok.text += '\n';
    else if (e == 't') tok.text += '\t';
    else if (e == '"' || e == '\\') tok.text += e;
    else if (e == 'x' && hexDigit(peek(1)) >= 0 && hexDigit(peek(2)) >= 0) {
      tok.text += static_cast<char>(hexDigit(peek(1)) * 16 + hexDigit(peek(2)));
      advance();
      advance();
    } else {
      return fail(line, col, "bad escape in string");
    }
    if (m_pos < m_text.size()) advance();
  }
}

Expected<std::vector<Token>> Lexer::run() {
  std::vector<Token> out;
  while (true) {
    char c = peek();
    if (m_pos >= m_text.size()) break;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      advance();
      continue;
    }
    if (c == '/' && peek(1) == '/') {  // comment to end of line
      while (m_pos < m_text.size() && peek() != '\n') advance();
      continue;
    }
    Token tok;
    tok.line = m_line;
    tok.col = m_col;
    if (c == '%') {
      tok.kind = TokKind::Value;
      advance();
      if (peek() == '"') {
        DFC_TRY(lexString(tok));
      } else {
        while (m_pos < m_text.size() && isNameChar(peek())) {
          tok.text += peek();
          advance();
        }
        if (tok.text.empty()) return fail(tok.line, tok.col, "expected a value name after '%'");
      }
    } else if (c == '"') {
      tok.kind = TokKind::String;
      DFC_TRY(lexString(tok));
    } else if (isDigit(c) || ((c == '-' || c == '+') && (isDigit(peek(1)) || isAlpha(peek(1)) || peek(1) == '.')) ||
               (c == '.' && isDigit(peek(1)))) {
      tok.kind = TokKind::Number;
      tok.text += c;
      advance();
      // Digits, '.', exponents with signs, and the words inf/nan.
      while (m_pos < m_text.size()) {
        char d = peek();
        char prev = tok.text.back();
        bool expSign = (d == '-' || d == '+') && (prev == 'e' || prev == 'E');
        if (!(isDigit(d) || isAlpha(d) || d == '.' || expSign)) break;
        tok.text += d;
        advance();
      }
    } else if (isAlpha(c)) {
      tok.kind = TokKind::Word;
      while (m_pos < m_text.size() && isNameChar(peek())) {
        tok.text += peek();
        advance();
      }
    } else if (c == '<' && peek(1) == '-') {
      tok.kind = TokKind::Arrow;
      tok.text = "<-";
      advance();
      advance();
    } else if (std::string_view("{}()[],:=@").find(c) != std::string_view::npos) {
      tok.kind = TokKind::Punct;
      tok.text = std::string(1, c);
      advance();
    } else {
      auto u = static_cast<unsigned char>(c);
      std::string shown = (u >= 0x20 && u < 0x7f) ? std::string(1, c) : "\\x" + std::to_string(u);
      return fail(tok.line, tok.col, "unexpected character '" + shown + "'");
    }
    out.push_back(std::move(tok));
  }
  Token end;
  end.kind = TokKind::End;
  end.line = m_line;
  end.col = m_col;
  out.push_back(end);
  return out;
}

}  // namespace

Expected<std::vector<Token>> lexDfir(std::string_view text, const std::string& sourceName) {
  return Lexer(text, sourceName).run();
}

}  // namespace dfc::ir
