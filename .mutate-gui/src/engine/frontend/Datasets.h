#pragma once
// Datasets in IDX format (MNIST, Fashion-MNIST), gzip-compressed or plain.
#include <string>

#include "ir/Tensor.h"
#include "support/Error.h"

namespace dfc::frontend {

struct Dataset {
  ir::Tensor images;  // f32 [N, 1, 28, 28], pixels scaled to [0, 1] then normalized (x - 0.5) / 0.5
  ir::Tensor labels;  // i64 [N]
  std::string imagesPath, labelsPath;  // the files they came from (for errors)
  int64_t size() const { return labels.numElements(); }
};

// Reads an IDX file (".gz" or not); errors name the file and what is wrong
// (bad magic, truncated, dimension mismatch).
Expected<ir::Tensor> readIdxImages(const std::string& path);  // u8 pixels -> normalized f32 [N,1,H,W]
Expected<ir::Tensor> readIdxLabels(const std::string& path);  // i64 [N]

// Loads train-images-idx3-ubyte(.gz)/train-labels-idx1-ubyte(.gz) or the t10k-*
// files from `folder`. `limit` > 0 keeps only the first `limit` samples.
Expected<Dataset> loadMnistLike(const std::string& folder, bool train, int64_t limit = 0);

}  // namespace dfc::frontend
