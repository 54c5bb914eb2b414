#include "driver/run/DataFeeder.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "frontend/Datasets.h"
#include "frontend/TextCorpus.h"

namespace dfc::driver {
namespace {

int64_t argmaxRow(const float* row, int64_t n) { return std::max_element(row, row + n) - row; }

// Rows past `count` stay zero: a padded last batch whose predictions are ignored.
template <typename IndexFn>
void copy(const frontend::Dataset& d, IndexFn index, int64_t count, ir::Tensor& images, ir::Tensor* labels) {
  size_t sampleFloats = static_cast<size_t>(images.numElements() / images.shape()[0]);
  std::memset(images.bytes(), 0, images.byteSize());
  if (labels) std::memset(labels->bytes(), 0, labels->byteSize());
  for (int64_t b = 0; b < count; ++b) {
    int64_t s = index(b);
    std::memcpy(images.data<float>() + static_cast<size_t>(b) * sampleFloats,
                d.images.data<float>() + static_cast<size_t>(s) * sampleFloats, sampleFloats * sizeof(float));
    if (labels) labels->data<int64_t>()[b] = d.labels.data<int64_t>()[s];
  }
}

class ImageFeeder : public DataFeeder {
 public:
  ImageFeeder(std::optional<frontend::Dataset> train, frontend::Dataset test, int64_t batch)
      : m_train(std::move(train)), m_test(std::move(test)), m_batch(batch) {
    if (m_train) {
      m_order.resize(static_cast<size_t>(m_train->size()));
      std::iota(m_order.begin(), m_order.end(), 0);
    }
  }
  int64_t trainSteps() const override { return m_train ? m_train->size() / m_batch : 0; }
  int64_t evalSteps() const override { return (m_test.size() + m_batch - 1) / m_batch; }
  int64_t testSamples() const override { return m_test.size(); }
  void startEpoch(std::mt19937_64& rng) override { std::shuffle(m_order.begin(), m_order.end(), rng); }
  void fillTrain(int64_t step, ir::Tensor& input, ir::Tensor& labels) override {
    copy(*m_train, [&](int64_t b) { return m_order[static_cast<size_t>(step * m_batch + b)]; }, m_batch, input, &labels);
  }
  void fillEval(int64_t step, ir::Tensor& input) override {
    int64_t first = step * m_batch;
    copy(m_test, [&](int64_t b) { return first + b; }, std::min(m_batch, m_test.size() - first), input, nullptr);
  }
  int64_t countCorrect(int64_t step, const ir::Tensor& logits) const override {
    int64_t first = step * m_batch, classes = logits.shape()[1], correct = 0;
    for (int64_t b = 0; b < m_batch && first + b < m_test.size(); ++b)
      correct += argmaxRow(logits.data<float>() + b * classes, classes) == m_test.labels.data<int64_t>()[first + b];
    return correct;
  }

 private:
  std::optional<frontend::Dataset> m_train;
  frontend::Dataset m_test;
  int64_t m_batch;
  std::vector<int64_t> m_order;
};

// Foreground segmentation of the same images: a pixel's label is 1 where the
// garment is (brighter than a quarter of full scale; pixels are in [-1, 1]), 0
// on the background. A task the images themselves label, so any IDX image set works.
class SegmentationFeeder final : public DataFeeder {
 public:
  SegmentationFeeder(std::optional<frontend::Dataset> train, frontend::Dataset test, int64_t batch)
      : m_images(std::move(train), test, batch), m_test(std::move(test)), m_batch(batch) {}
  int64_t trainSteps() const override { return m_images.trainSteps(); }
  int64_t evalSteps() const override { return m_images.evalSteps(); }
  int64_t testSamples() const override { return m_test.images.numElements(); }  // pixels
  void startEpoch(std::mt19937_64& rng) override { m_images.startEpoch(rng); }
  void fillTrain(int64_t step, ir::Tensor& input, ir::Tensor& labels) override {
    ir::Tensor classLabels(ir::TensorType{ir::DType::I64, {m_batch}});
    m_images.fillTrain(step, input, classLabels);
    const float* pixels = input.data<float>();
    int64_t* out = labels.data<int64_t>();
    for (int64_t i = 0; i < labels.numElements(); ++i) out[i] = foreground(pixels[i]);
  }
  void fillEval(int64_t step, ir::Tensor& input) override { m_images.fillEval(step, input); }
  int64_t countCorrect(int64_t step, const ir::Tensor& logits) const override {
    const auto& s = logits.shape();  // [N, C, H, W]
    const int64_t classes = s[1], plane = s[2] * s[3], first = step * m_batch;
    const float* images = m_test.images.data<float>();
    int64_t correct = 0;
    for (int64_t b = 0; b < m_batch && first + b < m_test.size(); ++b)
      for (int64_t p = 0; p < plane; ++p) {
        const float* score = logits.data<float>() + b * classes * plane + p;
        int64_t best = 0;
        for (int64_t c = 1; c < classes; ++c)
          if (score[c * plane] > score[best * plane]) best = c;
        correct += best == foreground(images[(first + b) * plane + p]);
      }
    return correct;
  }

 private:
  static int64_t foreground(float pixel) { return pixel > -0.5f ? 1 : 0; }
  ImageFeeder m_images;
  frontend::Dataset m_test;
  int64_t m_batch;
};

// Windows of `seq` byte tokens; labels are the same window shifted by one.
class TokenFeeder final : public DataFeeder {
 public:
  TokenFeeder(frontend::TextCorpus corpus, int64_t batch, int64_t seq, const FeederLimits& limits)
      : m_corpus(std::move(corpus)), m_batch(batch), m_seq(seq) {
    int64_t windows = (m_corpus.train.numElements() - 1) / m_seq;
    if (limits.trainSamples > 0) windows = std::min(windows, limits.trainSamples);
    m_trainWindows = windows;
    m_testWindows = (m_corpus.test.numElements() - 1) / m_seq;
    if (limits.testSamples > 0) m_testWindows = std::min(m_testWindows, limits.testSamples);
  }
  int64_t trainSteps() const override { return m_trainWindows / m_batch; }
  int64_t evalSteps() const override { return (m_testWindows + m_batch - 1) / m_batch; }
  int64_t testSamples() const override { return m_testWindows * m_seq; }
  void startEpoch(std::mt19937_64& rng) override {
    // A random phase each epoch so windows don't always start at the same bytes.
    m_offset = static_cast<int64_t>(rng() % static_cast<uint64_t>(m_seq));
    m_order.resize(static_cast<size_t>(m_trainWindows));
    std::iota(m_order.begin(), m_order.end(), 0);
    std::shuffle(m_order.begin(), m_order.end(), rng);
  }
  void fillTrain(int64_t step, ir::Tensor& input, ir::Tensor& labels) override {
    const int64_t* tokens = m_corpus.train.data<int64_t>();
    int64_t limit = m_corpus.train.numElements() - m_seq - 1;
    for (int64_t b = 0; b < m_batch; ++b) {
      int64_t start = std::min(m_order[static_cast<size_t>(step * m_batch + b)] * m_seq + m_offset, limit);
      std::memcpy(input.data<int64_t>() + b * m_seq, tokens + start, static_cast<size_t>(m_seq) * sizeof(int64_t));
      std::memcpy(labels.data<int64_t>() + b * m_seq, tokens + start + 1, static_cast<size_t>(m_seq) * sizeof(int64_t));
    }
  }
  void fillEval(int64_t step, ir::Tensor& input) override {
    std::memset(input.bytes(), 0, input.byteSize());
    for (int64_t b = 0; b < m_batch && step * m_batch + b < m_testWindows; ++b)
      std::memcpy(input.data<int64_t>() + b * m_seq, m_corpus.test.data<int64_t>() + (step * m_batch + b) * m_seq,
                  static_cast<size_t>(m_seq) * sizeof(int64_t));
  }
  int64_t countCorrect(int64_t step, const ir::Tensor& logits) const override {
    int64_t vocab = logits.shape().back(), correct = 0;
    for (int64_t b = 0; b < m_batch && step * m_batch + b < m_testWindows; ++b) {
      const int64_t* next = m_corpus.test.data<int64_t>() + (step * m_batch + b) * m_seq + 1;
      for (int64_t t = 0; t < m_seq; ++t)
        correct += argmaxRow(logits.data<float>() + (b * m_seq + t) * vocab, vocab) == next[t];
    }
    return correct;
  }

 private:
  frontend::TextCorpus m_corpus;
  int64_t m_batch, m_seq, m_trainWindows = 0, m_testWindows = 0, m_offset = 0;
  std::vector<int64_t> m_order;
};

// What the feeder writes and reads must match the PEF's tensors exactly: it
// copies whole batches into them and indexes the logits by sample and class.
Status checkRunShapes(const pef::Pef& pef, const ir::TensorType& input, int64_t* classes) {
  const pef::PefMeta& m = pef.meta;
  ir::ValueId logitsId = pef.graph.findValue(m.logitsOutput);
  if (logitsId == ir::kNoValue) return makeError("PEF meta names logits '" + m.logitsOutput + "' that the graph lacks");
  const ir::TensorType& logits = pef.graph.value(logitsId).type;
  const int64_t batch = input.rank() ? input.shape[0] : 0;
  auto refuse = [&](const std::string& what) {
    return makeError("PEF logits_output '" + m.logitsOutput + "' is " + logits.toString() + "; dfc run needs " + what);
  };
  if (logits.dtype != ir::DType::F32 || logits.rank() < 2 || logits.shape[0] != batch || logits.shape.back() < 1)
    return refuse("f32 scores with a row per sample of the " + input.toString() + " input");
  if (m.task == "language_model") {
    if (logits.numElements() != input.numElements() * logits.shape.back())
      return refuse("a score per token of the " + input.toString() + " input");
    if (logits.shape.back() < 256) return refuse("a vocabulary of at least 256 (byte tokens)");
  } else if (m.task == "segmentation") {
    if (logits.rank() != 4 || input.rank() != 4 || logits.shape[1] < 2 || logits.shape[2] != input.shape[2] ||
        logits.shape[3] != input.shape[3] || input.shape[1] != 1)
      return refuse("[batch, classes >= 2, H, W] scores over a [batch, 1, H, W] image");
    *classes = logits.shape[1];
  } else if (logits.rank() != 2) {
    return refuse("[batch, classes]");
  }
  if (input.dtype != (m.task == "language_model" ? ir::DType::I64 : ir::DType::F32))
    return makeError("PEF input '" + m.imageInput + "' is " + input.toString() + ", which the " + m.task + " data cannot fill");
  if (m.task != "segmentation") *classes = logits.shape.back();
  return {};
}

// Corrupt label files would otherwise surface as a kernel error mid-training.
Status checkLabels(const frontend::Dataset& d, int64_t classes) {
  const int64_t* labels = d.labels.data<int64_t>();
  for (int64_t i = 0; i < d.labels.numElements(); ++i)
    if (labels[i] < 0 || labels[i] >= classes)
      return makeError(d.labelsPath + ": label " + std::to_string(labels[i]) + " of record " + std::to_string(i) +
                       " is outside the PEF's " + std::to_string(classes) + " classes");
  return {};
}

}  // namespace

std::string defaultDataFolder(const std::string& task) {
  return task == "language_model" ? frontend::defaultTextCorpusPath() : "/usr/share/datasets/fashion-mnist";
}

Expected<std::unique_ptr<DataFeeder>> makeDataFeeder(const pef::Pef& pef, const std::string& dataFolder, bool training,
                                                     const FeederLimits& limits) {
  std::string folder = dataFolder.empty() ? defaultDataFolder(pef.meta.task) : dataFolder;
  ir::ValueId input = pef.graph.findValue(pef.meta.imageInput);
  if (input == ir::kNoValue) return makeError("PEF meta names input '" + pef.meta.imageInput + "' that the graph lacks");
  const ir::TensorType& type = pef.graph.value(input).type;
  int64_t classes = 0;
  DFC_TRY(checkRunShapes(pef, type, &classes));
  int64_t batch = type.shape.at(0);
  if (pef.meta.task == "language_model") {
    if (type.rank() != 2 || type.dtype != ir::DType::I64)
      return makeError("language-model PEF input '" + pef.meta.imageInput + "' must be i64 [batch, seq], is " +
                       type.toString());
    auto corpus = frontend::loadTextCorpus(folder);
    if (!corpus) return corpus.error();
    auto feeder = std::make_unique<TokenFeeder>(std::move(*corpus), batch, type.shape[1], limits);
    if (training && feeder->trainSteps() == 0)
      return makeError("--data-folder " + folder + ": too little text for one batch of " + std::to_string(batch) +
                       " x " + std::to_string(type.shape[1]) + " tokens");
    return std::unique_ptr<DataFeeder>(std::move(feeder));
  }
  const bool segmentation = pef.meta.task == "segmentation";  // labels come from the pixels, not the label files
  std::optional<frontend::Dataset> train;
  if (training) {
    auto d = frontend::loadMnistLike(folder, true, limits.trainSamples);
    if (!d) return d.error();
    if (d->size() < batch)
      return makeError("training set has " + std::to_string(d->size()) + " samples, fewer than the batch size " +
                       std::to_string(batch));
    if (!segmentation) DFC_TRY(checkLabels(*d, classes));
    train = std::move(*d);
  }
  auto test = frontend::loadMnistLike(folder, false, limits.testSamples);
  if (!test) return test.error();
  if (!segmentation) DFC_TRY(checkLabels(*test, classes));
  const auto& have = test->images.shape();
  if (type.rank() != have.size() || !std::equal(type.shape.begin() + 1, type.shape.end(), have.begin() + 1))
    return makeError("--data-folder " + folder + ": samples of shape " + test->images.type().toString() +
                     " do not fit the PEF input '" + pef.meta.imageInput + "' " + type.toString());
  if (segmentation)
    return std::unique_ptr<DataFeeder>(std::make_unique<SegmentationFeeder>(std::move(train), std::move(*test), batch));
  return std::unique_ptr<DataFeeder>(std::make_unique<ImageFeeder>(std::move(train), std::move(*test), batch));
}

}  // namespace dfc::driver
