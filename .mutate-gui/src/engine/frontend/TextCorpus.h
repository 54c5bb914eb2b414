#pragma once
// Byte-level text corpora for language-model training: every byte is a token
// (vocabulary 256), so any text file works without a tokenizer download.
#include <string>

#include "ir/Tensor.h"
#include "support/Error.h"

namespace dfc::frontend {

struct TextCorpus {
  ir::Tensor train;  // i64 [N] token ids
  ir::Tensor test;   // i64 [M] token ids (the last tenth of the text)
};

// Debian's license texts: plain English prose present on every Debian system.
std::string defaultTextCorpusPath();  // "/usr/share/common-licenses"

// `path` is a text file or a folder whose regular files are read in name order
// (binary-looking files, with NUL bytes, are skipped). Errors name the path.
Expected<TextCorpus> loadTextCorpus(const std::string& path);

}  // namespace dfc::frontend
