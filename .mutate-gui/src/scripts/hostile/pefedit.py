"""Reads and rewrites PEF files chunk by chunk (engine/pef/Pef.h layout):
header "PEF\\0", u16 major, u16 minor, u32 flags, u32 count; then per chunk
char kind[8], u64 offset, u64 size, u32 crc32; chunks 64-byte aligned.
Used by the hostile-input scripts to craft malformed PEFs from a real one."""
import json
import struct
import zlib

HEADER = struct.Struct("<4sHHII")
ENTRY = struct.Struct("<8sQQI")


def read(path):
    """Returns (major, minor, flags, [(kind, bytes)]) in file order."""
    data = open(path, "rb").read()
    magic, major, minor, flags, count = HEADER.unpack_from(data, 0)
    assert magic == b"PEF\0", path + ": not a PEF"
    chunks = []
    for i in range(count):
        kind, offset, size, _crc = ENTRY.unpack_from(data, HEADER.size + i * ENTRY.size)
        chunks.append((kind.rstrip(b"\0").decode(), data[offset:offset + size]))
    return major, minor, flags, chunks


def encode(chunks, major=1, minor=1, flags=0):
    align = lambda n: (n + 63) // 64 * 64
    out = bytearray(HEADER.pack(b"PEF\0", major, minor, flags, len(chunks)))
    offset = align(HEADER.size + len(chunks) * ENTRY.size)
    body = bytearray()
    for kind, payload in chunks:
        out += ENTRY.pack(kind.encode().ljust(8, b"\0"), offset, len(payload), zlib.crc32(payload) & 0xFFFFFFFF)
        offset = align(offset + len(payload))
    for kind, payload in chunks:
        out += b"\0" * (align(len(out)) - len(out))
        out += payload
    return bytes(out)


class Pef:
    def __init__(self, path):
        self.major, self.minor, self.flags, chunks = read(path)
        self.chunks = dict(chunks)
        self.order = [k for k, _ in chunks]

    def json(self, kind):
        return json.loads(self.chunks[kind])

    def set_json(self, kind, value):
        self.chunks[kind] = json.dumps(value).encode()

    def text(self, kind):
        return self.chunks[kind].decode()

    def set_text(self, kind, value):
        self.chunks[kind] = value.encode()

    def write(self, path):
        with open(path, "wb") as f:
            f.write(encode([(k, self.chunks[k]) for k in self.order], self.major, self.minor, self.flags))
