#pragma once
// Error and Expected<T>: how the engine reports failure without exceptions
// crossing module boundaries. The CLI turns an Error into one line + exit 2.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace dfc {

enum class ErrorKind {
  BadInput,  // user-supplied file, flag or model is wrong: exit status 2
  Internal,  // a bug or an environment failure (I/O): exit status 1
};

class Error {
 public:
  Error() = default;
  explicit Error(std::string message, ErrorKind kind = ErrorKind::BadInput)
      : m_message(std::move(message)), m_kind(kind) {}
  const std::string& message() const { return m_message; }
  ErrorKind kind() const { return m_kind; }
  // Prefix with context, e.g. the file name: "lenet.pef: chunk 'graph': bad checksum".
  Error withContext(const std::string& context) const { return Error(context + ": " + m_message, m_kind); }

 private:
  std::string m_message;
  ErrorKind m_kind = ErrorKind::BadInput;
};

template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : m_data(std::move(value)) {}
  Expected(Error error) : m_data(std::move(error)) {}
  bool ok() const { return m_data.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(m_data); }
  const T& value() const& { return std::get<0>(m_data); }
  T&& value() && { return std::get<0>(std::move(m_data)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(m_data); }

 private:
  std::variant<T, Error> m_data;
};

// Expected<void>: success or an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : m_error(std::move(error)) {}
  static Status success() { return {}; }
  bool ok() const { return !m_error.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return *m_error; }

 private:
  std::optional<Error> m_error;
};

// A value quoted in a message, cut to `limit` bytes: a hostile input's 200 KB
// value must not become a 200 KB error line.
inline std::string clipped(std::string_view value, size_t limit = 60) {
  if (value.size() <= limit) return std::string(value);
  return std::string(value.substr(0, limit)) + "... (" + std::to_string(value.size()) + " bytes)";
}

inline Error makeError(std::string message) { return Error(std::move(message), ErrorKind::BadInput); }
inline Error internalError(std::string message) { return Error(std::move(message), ErrorKind::Internal); }

}  // namespace dfc

// Propagate an error from an expression returning Status or Expected<T>.
#define DFC_TRY(expr)                         \
  do {                                        \
    auto&& dfcTryResult_ = (expr);            \
    if (!dfcTryResult_) return dfcTryResult_.error(); \
  } while (0)
