#pragma once
// Tiny ONNX models built with the protobuf API, for the importer tests.
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace dfc::test {

inline void addTensorValue(::onnx::ValueInfoProto* v, const std::string& name, int elemType,
                           const std::vector<int64_t>& dims, const std::string& batchParam = "") {
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elemType);
  auto* shape = tt->mutable_shape();
  for (size_t i = 0; i < dims.size(); ++i) {
    auto* d = shape->add_dim();
    if (i == 0 && !batchParam.empty()) d->set_dim_param(batchParam);
    else d->set_dim_value(dims[i]);
  }
}

inline ::onnx::ModelProto makeModel(int64_t opset = 17) {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("dfc-tests");
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  m.mutable_graph()->set_name("g");
  return m;
}

inline ::onnx::NodeProto* addNode(::onnx::ModelProto& m, const std::string& op, const std::string& name,
                                  const std::vector<std::string>& inputs, const std::vector<std::string>& outputs) {
  auto* n = m.mutable_graph()->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (const auto& i : inputs) n->add_input(i);
  for (const auto& o : outputs) n->add_output(o);
  return n;
}

inline ::onnx::TensorProto* addFloatInitializer(::onnx::ModelProto& m, const std::string& name,
                                                const std::vector<int64_t>& dims, const std::vector<float>& data) {
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(::onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  for (float f : data) t->add_float_data(f);
  return t;
}

inline void writeModel(const ::onnx::ModelProto& m, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  m.SerializeToOstream(&out);
}

class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    std::random_device rd;
    m_path = std::filesystem::temp_directory_path() / ("dfc-onnx-" + tag + "-" + std::to_string(rd()));
    std::filesystem::create_directories(m_path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  std::string operator/(const std::string& name) const { return (m_path / name).string(); }

 private:
  std::filesystem::path m_path;
};

}  // namespace dfc::test
