#pragma once
// GraphBuilder: the way models are written. One method per forward op; output
// types come from shape inference; node and value names are unique and carry
// the hyperfunction scope ("conv1/conv2d", value "conv1/conv2d.out").
//
// Errors are sticky: the first failure is kept in status() and every later op
// returns ir::kNoValue, so a model builder checks once at the end.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ir/Graph.h"
#include "support/Error.h"
#include "support/NameSet.h"

namespace dfc::frontend {

class GraphBuilder {
 public:
  // RAII hyperfunction scope: pushed by GraphBuilder::scope(), popped when destroyed.
  class Scope {
   public:
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    Scope(Scope&& other) noexcept : m_builder(other.m_builder) { other.m_builder = nullptr; }
    Scope& operator=(Scope&&) = delete;
    ~Scope();

   private:
    friend class GraphBuilder;
    explicit Scope(GraphBuilder* builder) : m_builder(builder) {}
    GraphBuilder* m_builder;
  };

  // Builds into `graph` (which may already hold nodes); weights drawn from `seed`.
  explicit GraphBuilder(ir::Graph& graph, uint64_t seed = 42);

  [[nodiscard]] Scope scope(const std::string& name);
  const std::string& currentScope() const { return m_scope; }
  void setRole(ir::NodeRole role) { m_role = role; }
  ir::NodeRole role() const { return m_role; }
  const Status& status() const { return m_status; }
  ir::Graph& graph() { return m_graph; }

  // Leaves. Names are prefixed by the scope ("fc1/weight").
  ir::ValueId input(const std::string& name, ir::TensorType type);
  ir::ValueId param(const std::string& name, ir::Tensor initial);
  // A Param drawn uniformly from [-bound, bound] (deterministic from the seed).
  ir::ValueId paramUniform(const std::string& name, ir::Shape shape, double bound);
  ir::ValueId constant(const std::string& name, ir::Tensor data);

  // Forward ops.
  ir::ValueId add(ir::ValueId a, ir::ValueId b);
  ir::ValueId sub(ir::ValueId a, ir::ValueId b);
  ir::ValueId mul(ir::ValueId a, ir::ValueId b);
  ir::ValueId scale(ir::ValueId x, double alpha);
  ir::ValueId biasAdd(ir::ValueId x, ir::ValueId bias);
  ir::ValueId relu(ir::ValueId x);
  ir::ValueId matmul(ir::ValueId a, ir::ValueId b, bool transA = false, bool transB = false);
  ir::ValueId conv2d(ir::ValueId x, ir::ValueId w, std::vector<int64_t> stride = {1, 1},
                     std::vector<int64_t> pad = {0, 0});
  ir::ValueId maxpool2d(ir::ValueId x, std::vector<int64_t> kernel = {2, 2}, std::vector<int64_t> stride = {2, 2});
  ir::ValueId reshape(ir::ValueId x, ir::Shape shape);
  ir::ValueId reduceSum(ir::ValueId x, std::vector<int64_t> axes, bool keepdims = false);
  ir::ValueId softmax(ir::ValueId x);
  ir::ValueId softmaxCrossEntropy(ir::ValueId logits, ir::ValueId labels);

  // Any op by kind; returns all outputs (empty on error).
  std::vector<ir::ValueId> op(ir::OpKind kind, std::vector<ir::ValueId> inputs, ir::Attributes attrs = {});

  // Composite layers (PyTorch defaults: Kaiming-uniform, bound 1/sqrt(fan_in) for weight and bias).
  // linear: weight [out, in] used through matmul trans_b=1, then bias_add.
  ir::ValueId linear(ir::ValueId x, int64_t in, int64_t out);
  // conv layer: weight [outC, inC, k, k], conv2d then bias_add.
  ir::ValueId convLayer(ir::ValueId x, int64_t inChannels, int64_t outChannels, int64_t kernel, int64_t stride = 1,
                        int64_t pad = 0);

 private:
  std::string scoped(const std::string& name) const;
  std::string uniqueName(std::string base, support::StringSet& taken);
  bool usable(const std::vector<ir::ValueId>& inputs);
  void fail(Error error);

  ir::Graph& m_graph;
  std::mt19937_64 m_rng;
  std::string m_scope;
  std::vector<size_t> m_scopeLengths;  // m_scope length before each push
  ir::NodeRole m_role = ir::NodeRole::Forward;
  Status m_status;
  support::StringSet m_valueNames;
  support::StringSet m_nodeNames;
};

}  // namespace dfc::frontend
