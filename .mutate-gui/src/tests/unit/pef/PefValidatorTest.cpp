// A PEF is checked for what the runtime trusts (issue 9): meta roles against
// the graph, section ids, roles and schedule, and declared sizes against the
// memory budget. Each hostile PEF is made from the valid sample by test code.
#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <random>

#include "pef/Pef.h"
#include "support/SizeBudget.h"
#include "unit/pef/SamplePef.h"

using namespace dfc;
using dfc::pef::test::samplePef;

namespace {

// The reader's error for the sample after `mutate`, or "<ok>".
std::string readError(const std::function<void(pef::Pef&)>& mutate) {
  pef::Pef p = samplePef();
  mutate(p);
  auto dir = std::filesystem::temp_directory_path() / ("dfc_pefval_" + std::to_string(std::random_device{}()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / "x.pef").string();
  REQUIRE(pef::writePef(p, path));
  auto r = pef::readPef(path);
  std::filesystem::remove_all(dir);
  if (r) return "<ok>";
  std::string msg = r.error().message();
  CHECK(msg.rfind(path + ": chunk '", 0) == 0);  // every refusal names the file and the chunk
  return msg.substr(msg.find("chunk '"));
}

void setSchedule(pef::Pef& p, std::vector<int> schedule) { p.plan.schedule = std::move(schedule); }

}  // namespace

TEST_CASE("the sample PEF is valid", "[pef][validate]") { CHECK(readError([](pef::Pef&) {}) == "<ok>"); }

TEST_CASE("meta roles must name values of the kind, dtype and shape the runtime writes", "[pef][validate]") {
  // labels_input naming the scalar learning rate made the feeder write 8 labels into 4 bytes.
  CHECK(readError([](pef::Pef& p) { p.meta.labelsInput = "lr"; }) ==
        "chunk 'meta': field 'labels_input' names input 'lr' f32[]; it must be i64[2], the labels of a batch");
  CHECK(readError([](pef::Pef& p) { p.meta.labelsInput = "conv1.weight"; }) ==
        "chunk 'meta': field 'labels_input' names param 'conv1.weight' f32[3,1,3,3], which is not a graph input");
  CHECK(readError([](pef::Pef& p) { p.meta.logitsOutput = "lr"; }) ==
        "chunk 'meta': field 'logits_output' names input 'lr' f32[], which is not a graph output");
  CHECK(readError([](pef::Pef& p) { p.meta.logitsOutput = "fc.weight"; }) ==
        "chunk 'meta': field 'logits_output' names param 'fc.weight' f32[27,4], which is not a graph output");
  CHECK(readError([](pef::Pef& p) { p.meta.logitsOutput = "loss"; }) ==
        "chunk 'meta': field 'logits_output' names value 'loss' f32[]; it must be f32 [batch, ...] scores, one row per sample");
  CHECK(readError([](pef::Pef& p) { p.meta.imageInput = "lr"; }) ==
        "chunk 'meta': field 'batch_size' is 2 but input 'lr' is f32[]");
  CHECK(readError([](pef::Pef& p) { p.meta.lrInput = "data/x_0"; }) ==
        "chunk 'meta': field 'lr_input' names input 'data/x_0' f32[2,1,6,6]; it must be an f32 scalar input (the learning rate)");
  CHECK(readError([](pef::Pef& p) { p.meta.lossOutput = "logits"; }) ==
        "chunk 'meta': field 'loss_output' names value 'logits' f32[2,4]; it must be an f32 scalar output (the loss)");
  CHECK(readError([](pef::Pef& p) { p.meta.imageInput = "nope"; }) ==
        "chunk 'meta': field 'image_input' names 'nope', which the graph lacks");
}

TEST_CASE("meta batch size, learning rate and inference flag must agree with the graph", "[pef][validate]") {
  CHECK(readError([](pef::Pef& p) { p.meta.batchSize = 999; }) ==
        "chunk 'meta': field 'batch_size' is 999 but input 'data/x_0' is f32[2,1,6,6]");
  CHECK(readError([](pef::Pef& p) { p.meta.defaultLr = -1; }).rfind(
            "chunk 'meta': field 'default_lr' is -1.000000; a training PEF needs a positive learning rate", 0) == 0);
  CHECK(readError([](pef::Pef& p) { p.meta.defaultLr = std::nan(""); }).find("field 'default_lr' is nan") !=
        std::string::npos);
  CHECK(readError([](pef::Pef& p) { p.meta.inference = true; }) ==
        "chunk 'meta': field 'labels_input' is 'labels'; an inference PEF has none");
  CHECK(readError([](pef::Pef& p) {
          p.meta.inference = true;
          p.meta.labelsInput = p.meta.lrInput = p.meta.lossOutput = "";
        }) == "chunk 'meta': field 'inference' is true but the graph updates 9 values");
  CHECK(readError([](pef::Pef& p) { p.graph.updates.clear(); }) ==
        "chunk 'meta': field 'inference' is false but the graph updates no weights");
  CHECK(readError([](pef::Pef& p) { p.meta.optLevel = "o3"; }) ==
        "chunk 'meta': field 'opt_level' is 'o3' but the sections are -o1");
}

TEST_CASE("section ids must be 0..n-1 and hypersections must list their instances", "[pef][validate]") {
  // Unique ids that are not 0..n-1 aborted inspect and run (sections.at(id)).
  CHECK(readError([](pef::Pef& p) {
          for (auto& s : p.plan.sections) s.id += 100;
          for (auto& h : p.plan.hypersections)
            for (int& s : h.sections) s += 100;
          for (int& s : p.plan.schedule) s += 100;
        }) == "chunk 'sections': section 's0_part' at position 0 has id 100; section ids must be 0.." +
                   std::to_string(samplePef().plan.sections.size() - 1) + " in order");
  CHECK(readError([](pef::Pef& p) { p.plan.sections[1].hypersection = 7; }) ==
        "chunk 'sections': section #1 's1_part' refers to hypersection #7 of 2");
  CHECK(readError([](pef::Pef& p) { p.plan.hypersections[0].sections.pop_back(); })
            .find("is missing from its hypersection's instance list") != std::string::npos);
  CHECK(readError([](pef::Pef& p) { p.plan.sections[2].estimate.latencyUs = std::nan(""); }) ==
        "chunk 'sections': section #2 's2_part': estimate is not a finite number >= 0");
}

TEST_CASE("a section's nodes have its role and every node is in one section", "[pef][validate]") {
  // A forward section retyped backward dropped its op from evaluation.
  CHECK(readError([](pef::Pef& p) { p.plan.sections[0].type = ir::NodeRole::Backward; }) ==
        "chunk 'sections': section #0 's0_part' is typed backward but its node 'conv1.conv' is forward");
  CHECK(readError([](pef::Pef& p) { p.plan.sections[1].nodes.push_back(0); }) ==
        "chunk 'sections': node 'conv1.conv' is in section #1 's1_part' and in section #0");
  CHECK(readError([](pef::Pef& p) { p.plan.sections[1].nodes.pop_back(); }).find("is in no section") != std::string::npos);
}

TEST_CASE("the schedule calls every section exactly once", "[pef][validate]") {
  const size_t n = samplePef().plan.sections.size();
  // An empty schedule "trained" with loss 0 and zeroed every weight.
  CHECK(readError([](pef::Pef& p) { setSchedule(p, {}); }) == "chunk 'schedule': section #0 's0_part' (forward) is never "
                                                               "called (the schedule has 0 calls for " +
                                                                   std::to_string(n) + " sections)");
  // Dropping the optimizer sections zeroed the weights.
  CHECK(readError([](pef::Pef& p) {
          std::vector<int> kept;
          for (const auto& s : p.plan.sections)
            if (s.type != ir::NodeRole::Optimizer) kept.push_back(s.id);
          setSchedule(p, kept);
        }).find("(optimizer) is never called") != std::string::npos);
  // A million calls hung the run.
  CHECK(readError([](pef::Pef& p) {
          std::vector<int> many;
          for (int i = 0; i < 1000000; ++i) many.push_back(i % static_cast<int>(p.plan.sections.size()));
          setSchedule(p, many);
        }) == "chunk 'schedule': the schedule has 1000000 calls for " + std::to_string(n) +
                   " sections; a step calls every section once");
  CHECK(readError([](pef::Pef& p) { p.plan.schedule.back() = 0; }) ==
        "chunk 'schedule': schedule calls section #0 's0_part' twice");
}

TEST_CASE("declared sizes are checked against the memory budget before weights are allocated", "[pef][validate]") {
  // 256 GiB from a recipe of a few bytes: refused by name, whatever the machine.
  std::string err = readError([](pef::Pef& p) {
    ir::TensorType huge{ir::DType::F32, {65536, 1048576}};
    p.graph.addConst("big", ir::Tensor::deferred(huge, {ir::InitRecipe::Kind::Fill, 0.5, 0}));
  });
  CHECK(err.rfind("chunk 'graph': const 'big' f32[65536,1048576] needs 256.0 GiB, more than the memory budget of", 0) == 0);
  // A zero-filled tensor (a flag, no data in the file) above a small budget.
  support::setMemoryBudget(1 << 20);
  err = readError([](pef::Pef& p) { p.graph.addConst("zeros", ir::Tensor(ir::TensorType{ir::DType::F32, {1024, 1024}})); });
  support::setMemoryBudget(0);
  CHECK(err == "chunk 'graph': const 'zeros' f32[1024,1024] needs 4.0 MiB, more than the memory budget of 1.0 MiB "
               "(--max-memory to change it)");
}
