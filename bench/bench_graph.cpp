// Graph benchmark: the training graph of a 12-layer transformer (the zoo's
// gpt2 scopes: "h.<i>", "h.<i>/attn", "h.<i>/mlp"; synthesized here until the
// zoo has gpt2), shown with hyperfunctions collapsed. Measures time to the
// first shown layout and to expanding one layer, through GraphView (layout on
// its thread, as the app does). Prints the figures; asserts nothing.
#include <QApplication>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <cstdio>
#include <string>

#include "graph/GraphData.h"
#include "graph/GraphView.h"
#include "pef/Pef.h"

using namespace dfc;

namespace {

struct Built {
  ir::Graph graph;
  partition::Plan plan;
};

// Forward: per layer an attention block (10 ops) and an MLP block (5 ops);
// backward: two ops per forward op, same scopes; optimizer: one op per weight.
Built makeTransformer(int layers, int64_t width) {
  Built b;
  ir::Graph& g = b.graph;
  g.name = "gpt2-like";
  const ir::TensorType t{ir::DType::F32, {8, width}};
  ir::ValueId x = g.addInput("input_ids", t);
  int counter = 0;
  auto val = [&](const std::string& name) { return g.addValue(name + "_" + std::to_string(counter++), t, ir::ValueKind::Intermediate); };
  std::vector<std::pair<ir::NodeId, std::string>> forward;
  auto op1 = [&](ir::OpKind kind, const std::string& name, std::vector<ir::ValueId> in, const std::string& scope,
                 ir::NodeRole role) {
    const ir::ValueId out = val(name);
    const ir::NodeId id = g.addNode(kind, name + "_" + std::to_string(counter), std::move(in), {out}, {}, scope, role);
    return std::make_pair(id, out);
  };
  // Each forward step is a short chain (matmul + bias + cast + scale), as in an ONNX export.
  auto op = [&](ir::OpKind kind, const std::string& name, std::vector<ir::ValueId> in, const std::string& scope,
                ir::NodeRole role = ir::NodeRole::Forward) {
    auto r = op1(kind, name, std::move(in), scope, role);
    if (role != ir::NodeRole::Forward) return r;
    for (const char* extra : {"/bias", "/cast", "/scale"}) r = op1(ir::OpKind::Relu, name + extra, {r.second}, scope, role);
    return r;
  };
  std::vector<ir::ValueId> weights;
  for (int l = 0; l < layers; ++l) {
    const std::string h = "h." + std::to_string(l);
    const std::string attn = h + "/attn", mlp = h + "/mlp";
    auto w = [&](const std::string& name) {
      weights.push_back(g.addParam(h + "/" + name + std::to_string(counter++), ir::Tensor(ir::TensorType{ir::DType::F32, {width, width}})));
      return weights.back();
    };
    ir::ValueId res = x;
    auto q = op(ir::OpKind::MatMul, attn + "/q", {x, w("wq")}, attn).second;
    auto k = op(ir::OpKind::MatMul, attn + "/k", {x, w("wk")}, attn).second;
    auto v = op(ir::OpKind::MatMul, attn + "/v", {x, w("wv")}, attn).second;
    auto s = op(ir::OpKind::MatMul, attn + "/scores", {q, k}, attn).second;
    auto p = op(ir::OpKind::Relu, attn + "/softmax", {s}, attn).second;
    auto c = op(ir::OpKind::MatMul, attn + "/context", {p, v}, attn).second;
    auto o = op(ir::OpKind::MatMul, attn + "/proj", {c, w("wo")}, attn).second;
    auto a = op(ir::OpKind::Add, h + "/residual1", {o, res}, h).second;
    auto m1 = op(ir::OpKind::MatMul, mlp + "/fc", {a, w("w1")}, mlp).second;
    auto gl = op(ir::OpKind::Relu, mlp + "/gelu", {m1}, mlp).second;
    auto m2 = op(ir::OpKind::MatMul, mlp + "/proj", {gl, w("w2")}, mlp).second;
    x = op(ir::OpKind::Add, h + "/residual2", {m2, a}, h).second;
  }
  // Backward: mirror each forward op in reverse with two ops, same scope.
  const size_t forwardCount = g.nodes.size();  // backward mirrors every forward op
  ir::ValueId grad = op(ir::OpKind::Relu, "loss", {x}, "").second;
  for (size_t i = forwardCount; i-- > 0;) {
    const ir::Node fwd = g.nodes[i];
    auto g1 = op(ir::OpKind::MatMul, fwd.name + "_grad_in", {grad, fwd.outputs[0]}, fwd.scope, ir::NodeRole::Backward);
    op(ir::OpKind::MatMul, fwd.name + "_grad_w", {grad, fwd.inputs[0]}, fwd.scope, ir::NodeRole::Backward);
    grad = g1.second;
  }
  for (ir::ValueId w : weights) {
    const std::string name = g.value(w).name;
    op(ir::OpKind::Add, name + "_sgd", {w, grad}, name.substr(0, name.find('/')), ir::NodeRole::Optimizer);
  }
  // One section per (scope, role); hypersections shared across layers.
  std::map<std::pair<std::string, ir::NodeRole>, int> sectionOf;
  std::map<std::string, int> hyperOf;
  for (const auto& node : g.nodes) {
    auto [it, inserted] = sectionOf.try_emplace({node.scope, node.role}, static_cast<int>(b.plan.sections.size()));
    if (inserted) {
      partition::Section s;
      s.id = it->second;
      s.name = "s" + std::to_string(s.id);
      s.type = node.role;
      s.hyperfunction = node.scope;
      const std::string pattern = node.scope.substr(node.scope.find('/') == std::string::npos ? node.scope.size() : node.scope.find('/')) +
                                  std::string(ir::roleName(node.role));
      auto [hit, newHyper] = hyperOf.try_emplace(pattern, static_cast<int>(b.plan.hypersections.size()));
      if (newHyper) b.plan.hypersections.push_back({hit->second, "hs" + std::to_string(hit->second), {}});
      s.hypersection = hit->second;
      b.plan.hypersections[static_cast<size_t>(hit->second)].sections.push_back(s.id);
      s.estimate.pcus = 40;
      s.estimate.pmus = 30;
      s.estimate.latencyUs = 12.5;
      b.plan.sections.push_back(s);
      b.plan.schedule.push_back(s.id);
    }
    b.plan.sections[static_cast<size_t>(it->second)].nodes.push_back(node.id);
  }
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  int layers = 12;
  std::string pefPath;  // e.g. from `dfc compile --model gpt2 -o0`
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--layers") layers = std::stoi(argv[++i]);
    if (std::string(argv[i]) == "--pef") pefPath = argv[++i];
  }
  std::shared_ptr<const ir::Graph> graph;
  std::shared_ptr<const partition::Plan> plan;
  if (!pefPath.empty()) {
    auto pef = pef::readPef(pefPath);
    if (!pef) {
      std::fprintf(stderr, "%s\n", pef.error().message().c_str());
      return 2;
    }
    auto shared = std::make_shared<const pef::Pef>(std::move(pef.value()));
    graph = std::shared_ptr<const ir::Graph>(shared, &shared->graph);
    plan = std::shared_ptr<const partition::Plan>(shared, &shared->plan);
  } else {
    Built built = makeTransformer(layers, 64);
    graph = std::make_shared<const ir::Graph>(std::move(built.graph));
    plan = std::make_shared<const partition::Plan>(std::move(built.plan));
  }
  std::printf("training graph: %zu ops, %zu sections, %zu hypersections (%s)\n", graph->nodes.size(),
              plan->sections.size(), plan->hypersections.size(), pefPath.empty() ? "synthesized" : pefPath.c_str());

  views::GraphView view;
  view.resize(1400, 900);
  QSignalSpy shown(&view, &views::GraphView::layoutShown);
  QElapsedTimer timer;
  timer.start();
  views::GraphDataOptions options;
  options.collapsedScopes = views::topLevelScopes(*graph);  // as the app shows big graphs
  view.setModel(graph, plan, options);
  if (!shown.wait(60000)) return 1;
  std::printf("collapsed: %zu nodes, %zu edges shown in %.0f ms (dot %.0f ms)\n", view.graph().nodes.size(),
              view.graph().edges.size(), timer.nsecsElapsed() / 1e6, view.currentLayout().elapsedMs);

  timer.restart();
  view.expand(QStringLiteral("h.5"));
  if (!shown.wait(60000)) return 1;
  std::printf("expand h.5: %zu nodes, %zu edges shown in %.0f ms (dot %.0f ms)\n", view.graph().nodes.size(),
              view.graph().edges.size(), timer.nsecsElapsed() / 1e6, view.currentLayout().elapsedMs);

  timer.restart();
  view.collapse(QStringLiteral("h.5"));
  if (!shown.wait(60000)) return 1;
  std::printf("collapse h.5 again: %zu nodes in %.0f ms\n", view.graph().nodes.size(), timer.nsecsElapsed() / 1e6);
  return 0;
}
