#include "frontend/TextCorpus.h"

#include <algorithm>
#include <filesystem>

#include "support/FileUtil.h"

namespace dfc::frontend {

std::string defaultTextCorpusPath() { return "/usr/share/common-licenses"; }

Expected<TextCorpus> loadTextCorpus(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> files;
  if (fs::is_directory(path, ec)) {
    for (const auto& entry : fs::directory_iterator(path, ec))
      if (entry.is_regular_file(ec) && !entry.is_symlink(ec)) files.push_back(entry.path());  // GPL -> GPL-3: once
    std::sort(files.begin(), files.end());
  } else if (fs::is_regular_file(path, ec)) {
    files.push_back(path);
  } else {
    return makeError("--data-folder " + path + ": no such text file or folder");
  }
  std::string text;
  for (const auto& f : files) {
    auto content = support::readFile(f.string());
    if (!content) return content.error();
    if (content->find('\0') != std::string::npos) continue;
    text += *content;
  }
  constexpr size_t kMinBytes = 4096;
  if (text.size() < kMinBytes)
    return makeError("--data-folder " + path + ": only " + std::to_string(text.size()) +
                     " bytes of text; a language model needs at least " + std::to_string(kMinBytes));
  size_t split = text.size() - text.size() / 10;
  auto toTokens = [&](size_t begin, size_t end) {
    ir::Tensor t(ir::TensorType{ir::DType::I64, {static_cast<int64_t>(end - begin)}});
    for (size_t i = begin; i < end; ++i) t.data<int64_t>()[i - begin] = static_cast<unsigned char>(text[i]);
    return t;
  };
  return TextCorpus{toTokens(0, split), toTokens(split, text.size())};
}

}  // namespace dfc::frontend
