#pragma once
// What the runner feeds a PEF each step, per task: image batches with class
// labels (IDX datasets), or windows of byte tokens with next-token labels.
#include <memory>
#include <random>
#include <string>

#include "ir/Tensor.h"
#include "pef/Pef.h"
#include "support/Error.h"

namespace dfc::driver {

class DataFeeder {
 public:
  virtual ~DataFeeder() = default;
  virtual int64_t trainSteps() const = 0;  // full batches per epoch
  virtual int64_t evalSteps() const = 0;   // batches covering the test set (last one padded)
  virtual int64_t testSamples() const = 0; // what accuracy is counted over (images or tokens)
  virtual void startEpoch(std::mt19937_64& rng) = 0;
  virtual void fillTrain(int64_t step, ir::Tensor& input, ir::Tensor& labels) = 0;
  virtual void fillEval(int64_t step, ir::Tensor& input) = 0;
  // Number of correct predictions in `logits` for eval batch `step`.
  virtual int64_t countCorrect(int64_t step, const ir::Tensor& logits) const = 0;
};

struct FeederLimits {
  int64_t trainSamples = 0;  // > 0: only this many training samples (images or token windows)
  int64_t testSamples = 0;   // > 0: only this many test samples
};

// Loads the data the PEF's task needs from `dataFolder` ("" = the task's default)
// and checks it fits the PEF's input. `training` false: the test split only.
Expected<std::unique_ptr<DataFeeder>> makeDataFeeder(const pef::Pef& pef, const std::string& dataFolder, bool training,
                                                     const FeederLimits& limits);

std::string defaultDataFolder(const std::string& task);

}  // namespace dfc::driver
