#pragma once
// Where a trace's event array is, and how to cut it into pieces that the
// cores parse at once. Chunks are cut speculatively: at a target offset the
// cutter looks for the next `}` `,` `{` (whitespace allowed between), which
// is almost always the seam between two events. A seam found inside a string
// or a nested object leaves the chunk before it unbalanced (an unclosed
// string or brace, or text after its closing bracket), so that chunk's parse
// fails and the reader falls back to parsing the file in one piece: a wrong
// guess costs time, never a wrong trace.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profile/TraceText.h"

namespace dfc::profile {

struct EventsSpan {
  uint64_t start = 0;        // first byte after the event array's '['
  bool objectForm = false;   // {"traceEvents":[...], ...} rather than [...]
};

// The event array's start: right after a leading '[', or after the
// "traceEvents" key of the top-level object (the keys before it skipped,
// strings and nesting respected). nullopt: not found (the one-piece parse
// then says what is wrong).
std::optional<EventsSpan> locateEvents(const TraceText& text);

// Chunk starts: `start` first, then one event start at or after every
// `chunkBytes` (none closer than that to the one before). A chunk runs to
// the next start; the last to the end of the text.
std::vector<uint64_t> chunkStarts(const TraceText& text, uint64_t start, uint64_t chunkBytes);

}  // namespace dfc::profile
