#pragma once
// A thin RAII layer over the SQLite C API: a connection, a prepared
// statement and a transaction guard that rolls back unless committed.
// Errors come back as dfc::Error naming the database file: bad input when the
// file is at fault (corrupt, foreign schema, a query that never ends), internal
// when the machine is (disk full, I/O). A database is data, never code we
// trust: every statement runs under a deadline and schema code is untrusted.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "support/Error.h"

struct sqlite3;
struct sqlite3_stmt;

namespace dfc::profile {

// What statements of one connection share with it: the file's name for errors
// and the deadline of the statement running now.
struct SqliteContext {
  std::string path;
  std::chrono::milliseconds timeout{20000};
  std::chrono::steady_clock::time_point deadline;
  void arm() { deadline = std::chrono::steady_clock::now() + timeout; }
};

class SqliteStatement {
 public:
  SqliteStatement() = default;
  ~SqliteStatement();
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&& other) noexcept;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  // Parameters are 1-based, as in SQLite.
  SqliteStatement& bind(int index, int64_t value);
  SqliteStatement& bind(int index, int value) { return bind(index, static_cast<int64_t>(value)); }
  SqliteStatement& bind(int index, double value);
  SqliteStatement& bind(int index, std::string_view value);
  SqliteStatement& bind(int index, std::optional<double> value);
  SqliteStatement& bind(int index, std::optional<int64_t> value);
  SqliteStatement& bindNull(int index);

  Expected<bool> step();  // true while a row is available
  Status run();           // steps to the end, then resets for the next use
  void reset();           // clears bindings too

  // Columns are 0-based.
  int64_t columnInt(int column) const;
  double columnDouble(int column) const;
  std::string columnText(int column) const;
  bool columnIsNull(int column) const;
  std::optional<double> columnOptionalDouble(int column) const;
  std::optional<int64_t> columnOptionalInt(int column) const;

 private:
  friend class SqliteDb;
  SqliteStatement(sqlite3_stmt* stmt, sqlite3* db, SqliteContext* context)
      : m_stmt(stmt), m_db(db), m_context(context) {}
  Error lastError(const char* what) const;
  sqlite3_stmt* m_stmt = nullptr;
  sqlite3* m_db = nullptr;
  SqliteContext* m_context = nullptr;  // owned by the SqliteDb, which outlives its statements
};

class SqliteDb {
 public:
  ~SqliteDb();
  SqliteDb(SqliteDb&& other) noexcept;
  SqliteDb& operator=(SqliteDb&& other) noexcept;
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  // Opens or creates the file; sets WAL, foreign keys, a busy timeout, an
  // untrusted schema, a 64 MiB limit on any value read, and a deadline per
  // statement (a trigger or view that never ends is stopped, not waited on).
  static Expected<SqliteDb> open(const std::string& path);

  // How long one statement (an exec, or one step) may run; tests shorten it.
  void setStatementTimeout(std::chrono::milliseconds timeout) { m_context->timeout = timeout; }

  Status exec(const std::string& sql);  // one or more statements, no results
  Expected<SqliteStatement> prepare(std::string_view sql);
  int64_t lastInsertId() const;
  int changes() const;
  const std::string& path() const { return m_context->path; }

 private:
  SqliteDb(sqlite3* db, std::string path);
  Error lastError(const std::string& what) const;
  sqlite3* m_db = nullptr;
  std::unique_ptr<SqliteContext> m_context;  // stable address for statements and the progress handler
};

// BEGIN IMMEDIATE on construction; ROLLBACK in the destructor unless commit()
// succeeded, so an early return on error never leaves a half-written change.
class SqliteTransaction {
 public:
  static Expected<SqliteTransaction> begin(SqliteDb& db);
  ~SqliteTransaction();
  SqliteTransaction(SqliteTransaction&& other) noexcept;
  SqliteTransaction& operator=(SqliteTransaction&&) = delete;
  SqliteTransaction(const SqliteTransaction&) = delete;
  SqliteTransaction& operator=(const SqliteTransaction&) = delete;
  Status commit();

 private:
  explicit SqliteTransaction(SqliteDb* db) : m_db(db) {}
  SqliteDb* m_db = nullptr;  // null once committed or rolled back
};

}  // namespace dfc::profile
