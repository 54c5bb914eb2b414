// Reads chrome tracing JSON into a CompactTrace. A trace is cut into chunks
// of ~8 MB at event seams (TraceChunks.h); every core parses chunks with
// the strict scanner (TraceChunkScan.cpp), or simdjson On-Demand where the
// scanner gives up, into records of their own (TraceChunkParser.h), and the
// chunks are merged (TraceChunkMerge.cpp). Only a chunk per core is ever in
// memory, and a plain file's args stay on disk, so a 1 GB trace costs its
// 48-byte records, not the file. A file the chunks cannot take (a seam
// guessed inside a string, malformed JSON, a time that is not a number) is
// parsed again in one piece, which gives the exact error or the repaired
// cut-off file.
#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "profile/CompactTrace.h"
#include "profile/TraceChunkMerge.h"
#include "profile/TraceChunkParser.h"
#include "profile/TraceChunks.h"
#include "profile/TraceRepair.h"

namespace dfc::profile {
namespace {

namespace od = simdjson::ondemand;

std::atomic<uint64_t> g_chunkBytes{uint64_t{8} << 20};
std::atomic<bool> g_scanFirst{true};

using Metadata = std::map<std::string, std::string>;

// otherData: strings as their text, objects and arrays as raw JSON.
Status readOtherData(od::value value, Metadata& out) {
  od::object other;
  if (value.get_object().get(other) != simdjson::SUCCESS) return {};
  for (auto entry : other) {
    od::field f;
    if (std::move(entry).get(f)) return makeError("invalid JSON in \"otherData\"");
    std::string_view key;
    if (f.unescaped_key().get(key)) continue;
    std::string keyCopy(key);
    od::value v = f.value();
    od::json_type type;
    if (v.type().get(type)) continue;
    std::string_view text;
    if (type == od::json_type::string) {
      if (v.get_string().get(text)) continue;
    } else if (type == od::json_type::object) {
      od::object o;
      if (v.get_object().get(o) || o.raw_json().get(text)) continue;
    } else if (type == od::json_type::array) {
      od::array a;
      if (v.get_array().get(a) || a.raw_json().get(text)) continue;
    } else {
      text = v.raw_json_token();
      while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\r' || text.back() == '\t'))
        text.remove_suffix(1);
    }
    out[keyCopy] = std::string(text);
  }
  return {};
}

// "FILE: invalid JSON at byte N: what", where the document's reading stopped.
Error invalidAt(od::document& doc, const std::string& source, const char* base, simdjson::error_code err) {
  const char* at = nullptr;
  std::string where;
  if (doc.current_location().get(at) == simdjson::SUCCESS && at >= base) where = " at byte " + std::to_string(at - base);
  return Error(source + ": invalid JSON" + where + ": " + simdjson::error_message(err));
}

// A whole document (array or object form): its events into `events` (when
// given), its otherData into `meta`.
Status readRoot(od::document& doc, const std::string& source, const char* base, ChunkResult* events, Metadata& meta) {
  od::json_type type;
  if (auto err = doc.type().get(type)) return invalidAt(doc, source, base, err);
  if (type == od::json_type::array) {
    od::array array;
    if (auto err = doc.get_array().get(array)) return invalidAt(doc, source, base, err);
    if (!events) return {};
    return ChunkParser(source, base, 0, *events).readEvents(array, doc);
  }
  if (type != od::json_type::object)
    return makeError(source + ": not a chrome trace: top level is neither an array nor an object");
  od::object root;
  if (auto err = doc.get_object().get(root)) return invalidAt(doc, source, base, err);
  bool sawEvents = false;
  for (auto fieldResult : root) {
    od::field field;
    if (auto err = std::move(fieldResult).get(field)) return invalidAt(doc, source, base, err);
    if (field.key() == "traceEvents") {
      od::array array;
      if (field.value().get_array().get(array) != simdjson::SUCCESS)
        return makeError(source + ": not a chrome trace: \"traceEvents\" is not an array");
      if (events) DFC_TRY(ChunkParser(source, base, 0, *events).readEvents(array, doc));
      sawEvents = true;
    } else if (field.key() == "otherData") {
      if (Status st = readOtherData(field.value(), meta); !st) return makeError(source + ": " + st.error().message());
    }
  }
  if (!sawEvents) return makeError(source + ": not a chrome trace: no \"traceEvents\" array");
  return {};
}

CompactTrace assemble(std::vector<ChunkResult>& chunks, Metadata meta, std::shared_ptr<const TraceText> text) {
  CompactTrace trace;
  trace.metadata = std::move(meta);
  trace.text = std::move(text);
  mergeChunks(chunks, trace);
  return trace;
}

// The one-piece parse: the whole text in memory (a cut-off file repaired).
Expected<CompactTrace> parseInOnePiece(std::shared_ptr<const TraceText> text) {
  PaddedBuffer owned;
  simdjson::padded_string_view view;
  if (const char* memory = text->memory()) {
    view = simdjson::padded_string_view(memory, text->size(), text->size() + PaddedBuffer::kPadding);
  } else {
    if (Status st = owned.reserve(static_cast<size_t>(text->size()), 0, text->name()); !st) return st.error();
    if (text->read(0, static_cast<size_t>(text->size()), owned.data()) != static_cast<int64_t>(text->size()))
      return makeError(text->name() + ": read failed (the file changed)");
    owned.resize(static_cast<size_t>(text->size()));
    view = simdjson::padded_string_view(owned.data(), owned.size(), owned.paddedCapacity());
  }
  const std::string& source = text->name();
  return parseCompletePart(view, source, [&](simdjson::padded_string_view json) -> Expected<CompactTrace> {
    od::parser parser;
    od::document doc;
    if (auto err = parser.iterate(json).get(doc)) return makeError(source + ": invalid JSON: " + simdjson::error_message(err));
    std::vector<ChunkResult> chunks(1);
    Metadata meta;
    DFC_TRY(readRoot(doc, source, json.data(), &chunks.front(), meta));
    return assemble(chunks, std::move(meta), text);
  });
}

struct ChunkJob {
  uint64_t begin = 0, end = 0;
  bool last = false;
};

struct ChunkOutcome {
  ChunkResult result;
  Status status;
  uint64_t tail = 0;  // the last chunk: where the text after the event array starts
};

// Where the event array closes in the last chunk: the first ']' outside
// strings and nested values; npos when it never does (a cut-off file).
size_t arrayEnd(std::string_view text) {
  int depth = 0;
  bool inString = false, escape = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (escape) escape = false;
      else if (c == '\\') escape = true;
      else if (c == '"') inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (depth == 0) return c == ']' ? i : std::string_view::npos;
      --depth;
    }
  }
  return std::string_view::npos;
}

// One per core: a buffer and a parser that grow to the largest chunk once.
class ChunkWorker {
 public:
  ChunkOutcome parse(const TraceText& text, const ChunkJob& job) {
    ChunkOutcome out;
    const size_t len = static_cast<size_t>(job.end - job.begin);
    if (Status st = m_buffer.reserve(len + 2, 0, text.name()); !st) return fail(out, st);
    char* buf = m_buffer.data();
    buf[0] = '[';
    if (text.read(job.begin, len, buf + 1) != static_cast<int64_t>(len))
      return fail(out, makeError(text.name() + ": read failed (the file changed)"));
    size_t size = len + 1;
    out.tail = text.size();
    if (job.last) {  // the event array ends here, and what follows it (otherData) is read apart
      const size_t end = arrayEnd(std::string_view(buf + 1, len));
      if (end == std::string_view::npos) return fail(out, makeError(text.name() + ": the event array does not end"));
      out.tail = job.begin + end + 1;
      size = end + 1;
    }
    // "{...},{...}," + ws: the seam's comma goes, the bracket closes.
    while (size > 1 && std::string_view(" \n\r\t").find(buf[size - 1]) != std::string_view::npos) --size;
    if (size > 1 && buf[size - 1] == ',') --size;
    buf[size++] = ']';
    m_buffer.resize(size);
    // Records reserved for one event per 128 bytes (ours take ~150, PyTorch's
    // ~350): one allocation instead of doubling, whose copies and fresh pages
    // cost as much as scanning; pages reserved but never written take no memory.
    out.result.events.reserve(size / 128);
    const auto base = static_cast<int64_t>(job.begin) - 1;  // buf[1] is text[job.begin]
    if (g_scanFirst.load() && ChunkParser(text.name(), buf, base, out.result).scanEvents(std::string_view(buf, size)))
      return out;
    out.result = ChunkResult{};  // the scanner gave up: simdjson reads it afresh, or words the error
    od::document doc;
    od::array array;
    if (auto err = m_parser.iterate(buf, size, m_buffer.paddedCapacity()).get(doc); err || doc.get_array().get(array))
      return fail(out, makeError(text.name() + ": chunk does not parse"));
    if (Status st = ChunkParser(text.name(), buf, base, out.result).readEvents(array, doc); !st) return fail(out, st);
    const char* at = nullptr;
    if (doc.current_location().get(at) == simdjson::SUCCESS)  // text after the array: a seam inside an event
      return fail(out, makeError(text.name() + ": chunk seam inside an event"));
    return out;
  }

 private:
  static ChunkOutcome& fail(ChunkOutcome& out, Status st) {
    out.status = std::move(st);
    return out;
  }
  PaddedBuffer m_buffer;
  od::parser m_parser;
};

std::vector<ChunkOutcome> parseChunks(const TraceText& text, const std::vector<ChunkJob>& jobs) {
  std::vector<ChunkOutcome> outcomes(jobs.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    ChunkWorker worker;
    for (size_t k; (k = next++) < jobs.size();) outcomes[k] = worker.parse(text, jobs[k]);
  };
  const size_t threads = std::min<size_t>({jobs.size(), std::max(1u, std::thread::hardware_concurrency()), 8});
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  return outcomes;
}

// The text around the event array (its head and whatever follows it), as a
// document with an empty array: the otherData metadata.
Expected<Metadata> readSkeleton(const TraceText& text, uint64_t eventsStart, uint64_t tail) {
  std::string skeleton = text.range(0, static_cast<size_t>(eventsStart)) + "]" +
                         text.range(tail, static_cast<size_t>(text.size() - std::min(tail, text.size())));
  const simdjson::padded_string padded(skeleton);
  od::parser parser;
  od::document doc;
  Metadata meta;
  if (parser.iterate(padded).get(doc)) return makeError("skeleton");
  DFC_TRY(readRoot(doc, text.name(), padded.data(), nullptr, meta));
  return meta;
}

Expected<CompactTrace> readText(std::shared_ptr<const TraceText> text) {
  const auto span = locateEvents(*text);
  if (!span) return parseInOnePiece(text);
  const std::vector<uint64_t> starts = chunkStarts(*text, span->start, g_chunkBytes.load());
  std::vector<ChunkJob> jobs;
  for (size_t k = 0; k < starts.size(); ++k)
    jobs.push_back({starts[k], k + 1 < starts.size() ? starts[k + 1] : text->size(), k + 1 == starts.size()});
  std::vector<ChunkOutcome> outcomes = parseChunks(*text, jobs);
  for (const ChunkOutcome& o : outcomes)
    if (!o.status) return parseInOnePiece(text);  // the exact error, or the cut-off file repaired
  auto meta = readSkeleton(*text, span->start, outcomes.back().tail);
  if (!meta) return parseInOnePiece(text);
  std::vector<ChunkResult> chunks;
  chunks.reserve(outcomes.size());
  for (ChunkOutcome& o : outcomes) chunks.push_back(std::move(o.result));
  outcomes.clear();
  return assemble(chunks, std::move(*meta), std::move(text));
}

}  // namespace

void setTraceChunkBytes(uint64_t bytes) { g_chunkBytes = bytes == 0 ? uint64_t{8} << 20 : bytes; }

void setTraceScanner(bool on) { g_scanFirst = on; }

Expected<CompactTrace> parseCompactTrace(const std::string& json, const std::string& sourceName) {
  return readText(TraceText::fromMemory(json, sourceName));
}

Expected<CompactTrace> readCompactTrace(const std::string& path) {
  auto text = TraceText::open(path);  // plain (read in chunks) or .json.gz (inflated), within the memory budget
  if (!text) return text.error();
  return readText(std::move(*text));
}

}  // namespace dfc::profile
