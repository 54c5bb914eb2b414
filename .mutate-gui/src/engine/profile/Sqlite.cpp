#include "profile/Sqlite.h"

#include <sqlite3.h>

#include <utility>

namespace dfc::profile {
namespace {

// Result codes that say the database file is at fault (bad input), not the
// machine: a corrupt or foreign file, a schema we did not write, values of the
// wrong type or size, a statement stopped at its deadline.
bool fileAtFault(int code) {
  switch (code & 0xff) {
    case SQLITE_CORRUPT: case SQLITE_NOTADB: case SQLITE_ERROR: case SQLITE_MISMATCH: case SQLITE_CONSTRAINT:
    case SQLITE_INTERRUPT: case SQLITE_TOOBIG: case SQLITE_SCHEMA: case SQLITE_FORMAT: case SQLITE_RANGE:
      return true;
    default:
      return false;
  }
}

Error sqliteError(sqlite3* db, const SqliteContext& context, const std::string& what, const char* detail = nullptr) {
  const int code = sqlite3_errcode(db);
  std::string text = detail ? detail : sqlite3_errmsg(db);
  if ((code & 0xff) == SQLITE_INTERRUPT)
    text = "gave up after " + std::to_string(context.timeout.count()) +
           " ms: a statement ran that long (a trigger or view in the file that never ends?)";
  std::string message = context.path + ": " + (what.empty() ? "" : what + ": ") + text;
  return fileAtFault(code) ? makeError(std::move(message)) : internalError(std::move(message));
}

// SQLite calls this every few thousand VM steps; nonzero interrupts the statement.
int pastDeadline(void* context) {
  return std::chrono::steady_clock::now() > static_cast<SqliteContext*>(context)->deadline ? 1 : 0;
}

constexpr int kMaxValueBytes = 64 << 20;  // no text or blob we store comes near this

}  // namespace

// ---- SqliteStatement -------------------------------------------------------

SqliteStatement::~SqliteStatement() { sqlite3_finalize(m_stmt); }

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : m_stmt(std::exchange(other.m_stmt, nullptr)), m_db(other.m_db), m_context(other.m_context) {}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(m_stmt);
    m_stmt = std::exchange(other.m_stmt, nullptr);
    m_db = other.m_db;
    m_context = other.m_context;
  }
  return *this;
}

// Bind errors only come from a wrong index (a bug); step() reports them.
SqliteStatement& SqliteStatement::bind(int index, int64_t value) {
  sqlite3_bind_int64(m_stmt, index, value);
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double value) {
  sqlite3_bind_double(m_stmt, index, value);
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view value) {
  sqlite3_bind_text(m_stmt, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::optional<double> value) {
  return value ? bind(index, *value) : bindNull(index);
}

SqliteStatement& SqliteStatement::bind(int index, std::optional<int64_t> value) {
  return value ? bind(index, *value) : bindNull(index);
}

SqliteStatement& SqliteStatement::bindNull(int index) {
  sqlite3_bind_null(m_stmt, index);
  return *this;
}

Expected<bool> SqliteStatement::step() {
  m_context->arm();
  int rc = sqlite3_step(m_stmt);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  Error err = lastError("query failed");
  sqlite3_reset(m_stmt);
  return err;
}

Status SqliteStatement::run() {
  Expected<bool> row = step();
  while (row.ok() && row.value()) row = step();
  sqlite3_reset(m_stmt);
  if (!row.ok()) return row.error();
  return Status::success();
}

void SqliteStatement::reset() {
  sqlite3_reset(m_stmt);
  sqlite3_clear_bindings(m_stmt);
}

int64_t SqliteStatement::columnInt(int column) const { return sqlite3_column_int64(m_stmt, column); }

double SqliteStatement::columnDouble(int column) const { return sqlite3_column_double(m_stmt, column); }

std::string SqliteStatement::columnText(int column) const {
  const unsigned char* text = sqlite3_column_text(m_stmt, column);
  if (!text) return {};
  return std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(sqlite3_column_bytes(m_stmt, column)));
}

bool SqliteStatement::columnIsNull(int column) const { return sqlite3_column_type(m_stmt, column) == SQLITE_NULL; }

std::optional<double> SqliteStatement::columnOptionalDouble(int column) const {
  if (columnIsNull(column)) return std::nullopt;
  return columnDouble(column);
}

std::optional<int64_t> SqliteStatement::columnOptionalInt(int column) const {
  if (columnIsNull(column)) return std::nullopt;
  return columnInt(column);
}

Error SqliteStatement::lastError(const char* what) const { return sqliteError(m_db, *m_context, what); }

// ---- SqliteDb --------------------------------------------------------------

SqliteDb::SqliteDb(sqlite3* db, std::string path)
    : m_db(db), m_context(std::make_unique<SqliteContext>()) {
  m_context->path = std::move(path);
}

SqliteDb::~SqliteDb() { sqlite3_close_v2(m_db); }

SqliteDb::SqliteDb(SqliteDb&& other) noexcept
    : m_db(std::exchange(other.m_db, nullptr)), m_context(std::move(other.m_context)) {}

SqliteDb& SqliteDb::operator=(SqliteDb&& other) noexcept {
  if (this != &other) {
    sqlite3_close_v2(m_db);
    m_db = std::exchange(other.m_db, nullptr);
    m_context = std::move(other.m_context);
  }
  return *this;
}

Expected<SqliteDb> SqliteDb::open(const std::string& path) {
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                           nullptr);
  SqliteDb db(raw, path);  // owns the handle even when opening failed
  if (rc != SQLITE_OK)
    return makeError(path + ": cannot open database: " + (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  sqlite3_busy_timeout(raw, 5000);  // another dfc process writing: wait, do not fail
  sqlite3_progress_handler(raw, 4096, pastDeadline, db.m_context.get());
  sqlite3_limit(raw, SQLITE_LIMIT_LENGTH, kMaxValueBytes);
  // The first real read happens here; a file that is not SQLite fails now.
  Status s = db.exec(
      "PRAGMA trusted_schema=OFF; PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL;");
  if (!s.ok()) {
    if (sqlite3_errcode(raw) == SQLITE_NOTADB)
      return makeError(path + ": not a SQLite database (is this the right file?)");
    return s.error();
  }
  return db;
}

Status SqliteDb::exec(const std::string& sql) {
  char* msg = nullptr;
  m_context->arm();
  if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
    Error err = sqliteError(m_db, *m_context, "", msg);
    sqlite3_free(msg);
    return err;
  }
  return Status::success();
}

Expected<SqliteStatement> SqliteDb::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  m_context->arm();
  if (sqlite3_prepare_v2(m_db, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) != SQLITE_OK)
    return lastError("cannot prepare statement");
  return SqliteStatement(stmt, m_db, m_context.get());
}

int64_t SqliteDb::lastInsertId() const { return sqlite3_last_insert_rowid(m_db); }

int SqliteDb::changes() const { return sqlite3_changes(m_db); }

Error SqliteDb::lastError(const std::string& what) const { return sqliteError(m_db, *m_context, what); }

// ---- SqliteTransaction -----------------------------------------------------

Expected<SqliteTransaction> SqliteTransaction::begin(SqliteDb& db) {
  DFC_TRY(db.exec("BEGIN IMMEDIATE"));
  return SqliteTransaction(&db);
}

SqliteTransaction::~SqliteTransaction() {
  if (m_db) (void)m_db->exec("ROLLBACK");
}

SqliteTransaction::SqliteTransaction(SqliteTransaction&& other) noexcept : m_db(std::exchange(other.m_db, nullptr)) {}

Status SqliteTransaction::commit() {
  Status s = m_db->exec("COMMIT");
  if (s.ok()) m_db = nullptr;  // on failure the destructor rolls back
  return s;
}

}  // namespace dfc::profile
