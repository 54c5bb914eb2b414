#include "frontend/Datasets.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <vector>

#include "support/SafePath.h"
#include "support/SizeBudget.h"

namespace dfc::frontend {
namespace {

constexpr uint32_t kImagesMagic = 0x00000803;
constexpr uint32_t kLabelsMagic = 0x00000801;
constexpr uint32_t kMaxDim = 1u << 24;  // guards the element count against garbage headers

struct GzCloser {
  void operator()(gzFile_s* f) const { gzclose(f); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

// An IDX file's header and its first `limit` records of raw u8 data.
struct IdxData {
  std::vector<uint32_t> dims;
  std::vector<uint8_t> bytes;
  int64_t count = 0;  // records kept (<= dims[0])
};

Error fileError(const std::string& path, const std::string& what) { return makeError(path + ": " + what); }

// gzread reads plain files unchanged, so one path serves .gz and uncompressed data.
Status readExactly(gzFile file, const std::string& path, void* out, size_t size, const char* what) {
  auto* dst = static_cast<uint8_t*>(out);
  while (size > 0) {
    unsigned chunk = static_cast<unsigned>(std::min<size_t>(size, 1u << 30));
    int got = gzread(file, dst, chunk);
    if (got < 0) {
      int code = 0;
      return fileError(path, std::string("corrupt data while reading ") + what + " (" + gzerror(file, &code) + ")");
    }
    if (got == 0) return fileError(path, std::string("truncated: file ends inside the ") + what);
    dst += got;
    size -= static_cast<size_t>(got);
  }
  return {};
}

Expected<IdxData> readIdx(const std::string& path, uint32_t magic, size_t rank, int64_t limit) {
  if (!std::filesystem::exists(path)) return fileError(path, "no such file");
  DFC_TRY(support::checkRegularFile(path, uint64_t{1} << 40));  // a FIFO or device would block or never end
  GzFile file(gzopen(path.c_str(), "rb"));
  if (!file) return fileError(path, "cannot open");
  std::array<uint8_t, 4> word{};
  auto readU32 = [&](const char* what, uint32_t& out) -> Status {
    DFC_TRY(readExactly(file.get(), path, word.data(), 4, what));
    out = (uint32_t{word[0]} << 24) | (uint32_t{word[1]} << 16) | (uint32_t{word[2]} << 8) | word[3];
    return {};
  };
  uint32_t gotMagic = 0;
  DFC_TRY(readU32("header", gotMagic));
  if (gotMagic != magic) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "bad magic 0x%08x, expected 0x%08x (%s)", gotMagic, magic,
                  magic == kImagesMagic ? "IDX u8 images of rank 3" : "IDX u8 labels of rank 1");
    return fileError(path, buf);
  }
  IdxData data;
  data.dims.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    DFC_TRY(readU32("header", data.dims[i]));
    if (data.dims[i] > kMaxDim || (i > 0 && data.dims[i] == 0))
      return fileError(path, "implausible dimension " + std::to_string(data.dims[i]) + " in header");
  }
  if (data.dims[0] == 0) return fileError(path, "holds no records");
  data.count = static_cast<int64_t>(data.dims[0]);
  if (limit > 0 && limit < data.count) data.count = limit;
  // Each dimension is below 2^24, so a record of rank 3 is below 2^48 bytes and
  // the products below cannot overflow; the budget counts the f32 copy too.
  uint64_t recordSize = 1;
  for (size_t i = 1; i < rank; ++i) recordSize *= data.dims[i];
  auto bytes = support::checkedMul(static_cast<uint64_t>(data.count), recordSize);
  if (!bytes) return fileError(path, "implausible header: the data would overflow a size");
  DFC_TRY(support::checkBudget(path + ": " + std::to_string(data.count) + " records of " + std::to_string(recordSize) +
                                   " bytes (as f32)",
                               *bytes * (rank > 1 ? 5 : 9)));
  // A plain file must hold what its header declares before that is allocated
  // (a 72-byte file declared 1 GiB of records); gzip's size is known only by reading.
  const uint64_t headerBytes = 4 * (rank + 1);
  if (gzdirect(file.get()) && std::filesystem::file_size(path) - headerBytes < *bytes)
    return fileError(path, "truncated: file ends inside the data");
  data.bytes.resize(static_cast<size_t>(*bytes));
  DFC_TRY(readExactly(file.get(), path, data.bytes.data(), data.bytes.size(), "data"));
  return data;
}

Expected<ir::Tensor> imagesFrom(const IdxData& d) {
  ir::Tensor t(ir::TensorType{ir::DType::F32, {d.count, 1, int64_t{d.dims[1]}, int64_t{d.dims[2]}}});
  float* out = t.data<float>();
  // Scale to [0,1], then normalize with mean 0.5 / std 0.5 into [-1,1].
  for (size_t i = 0; i < d.bytes.size(); ++i) out[i] = (static_cast<float>(d.bytes[i]) / 255.0f - 0.5f) / 0.5f;
  return t;
}

Expected<ir::Tensor> labelsFrom(const IdxData& d) {
  ir::Tensor t(ir::TensorType{ir::DType::I64, {d.count}});
  int64_t* out = t.data<int64_t>();
  for (size_t i = 0; i < d.bytes.size(); ++i) out[i] = d.bytes[i];
  return t;
}

Expected<ir::Tensor> loadImages(const std::string& path, int64_t limit) {
  auto d = readIdx(path, kImagesMagic, 3, limit);
  if (!d) return d.error();
  return imagesFrom(*d);
}

Expected<ir::Tensor> loadLabels(const std::string& path, int64_t limit) {
  auto d = readIdx(path, kLabelsMagic, 1, limit);
  if (!d) return d.error();
  return labelsFrom(*d);
}

// `folder/base.gz` if present, else `folder/base`; empty if neither exists.
std::string findFile(const std::string& folder, const std::string& base) {
  namespace fs = std::filesystem;
  for (const std::string& name : {base + ".gz", base}) {
    fs::path p = fs::path(folder) / name;
    if (fs::exists(p)) return p.string();
  }
  return {};
}

}  // namespace

Expected<ir::Tensor> readIdxImages(const std::string& path) { return loadImages(path, 0); }
Expected<ir::Tensor> readIdxLabels(const std::string& path) { return loadLabels(path, 0); }

Expected<Dataset> loadMnistLike(const std::string& folder, bool train, int64_t limit) {
  std::string prefix = train ? "train" : "t10k";
  std::string imagesBase = prefix + "-images-idx3-ubyte", labelsBase = prefix + "-labels-idx1-ubyte";
  std::string imagesPath = findFile(folder, imagesBase), labelsPath = findFile(folder, labelsBase);
  if (imagesPath.empty()) return makeError(folder + ": no " + imagesBase + "(.gz) in the data folder");
  if (labelsPath.empty()) return makeError(folder + ": no " + labelsBase + "(.gz) in the data folder");
  // Read headers through the loaders with the limit; the count check uses the full header counts.
  auto images = readIdx(imagesPath, kImagesMagic, 3, limit);
  if (!images) return images.error();
  auto labels = readIdx(labelsPath, kLabelsMagic, 1, limit);
  if (!labels) return labels.error();
  if (images->dims[0] != labels->dims[0])
    return makeError(imagesPath + ": holds " + std::to_string(images->dims[0]) + " images but " + labelsPath +
                     " holds " + std::to_string(labels->dims[0]) + " labels");
  Dataset ds;
  auto img = imagesFrom(*images);
  if (!img) return img.error();
  auto lab = labelsFrom(*labels);
  if (!lab) return lab.error();
  ds.images = std::move(*img);
  ds.labels = std::move(*lab);
  ds.imagesPath = imagesPath;
  ds.labelsPath = labelsPath;
  return ds;
}

}  // namespace dfc::frontend
