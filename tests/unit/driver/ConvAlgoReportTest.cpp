// The algorithm each convolution runs with, as `dfc inspect` lists it and as
// the run trace's sections table gives it per section (`conv_algo`: the same
// for every call of a run, so written once), on a small ResNet-18.
#include <simdjson.h>

#include <catch2/catch.hpp>

#include "driver/compile/Compiler.h"
#include "driver/report/ConvAlgoReport.h"
#include "driver/run/RunTrace.h"
#include "e2e/TestEnv.h"
#include "runtime/kernels/OneDnnConv.h"

using namespace dfc;
using runtime::ConvAlgoRequest;

namespace {

pef::Pef compileSmallResnet(const test::ScratchDir& dir, int64_t imageSize = 32, int64_t batch = 2) {
  driver::CompileOptions c;
  c.model = "resnet18";
  c.modelParams = {{"image_size", imageSize}, {"num_classes", 10}};
  c.batchSize = batch;
  c.inference = true;
  c.outputFolder = dir / "out";
  c.dbPath = "-";
  auto compiled = driver::compile(c);
  if (!compiled) FAIL(compiled.error().message());
  auto pef = pef::readPef(compiled->pefPath);
  if (!pef) FAIL(pef.error().message());
  return std::move(*pef);
}

int countContaining(const std::vector<std::string>& lines, const std::string& text) {
  int n = 0;
  for (const std::string& line : lines) n += line.find(text) != std::string::npos;
  return n;
}

// The conv_algo of each section in the trace's sections table ("" for sections without one).
std::vector<std::string> tracedAlgos(const pef::Pef& pef, ConvAlgoRequest request) {
  driver::RunTrace trace(pef, "test");
  trace.setConvAlgo(request);
  for (const partition::Section& s : pef.plan.sections) trace.addSectionCall(s.id, 0, 0, 1, 0);
  const profile::Trace taken = trace.take();
  simdjson::dom::parser parser;
  simdjson::dom::object table;
  REQUIRE(!parser.parse(taken.metadataJson.at("sections")).get(table));
  std::vector<std::string> algos;
  for (const partition::Section& s : pef.plan.sections) {
    std::string_view algo;
    algos.emplace_back(table[std::to_string(s.id)]["conv_algo"].get(algo) ? std::string_view() : algo);
  }
  return algos;
}

}  // namespace

TEST_CASE("inspect and the trace name each convolution's algorithm, following --conv-algo", "[driver][winograd]") {
  test::ScratchDir dir("conv-algo-report");
  const pef::Pef pef = compileSmallResnet(dir);
  // 32x32, batch 2: at most 2 x 2 x 2 F(4x4) tiles a conv, too few for our Winograd under auto, so
  // the stem, the strided and the 3x3 stride-1 convs run on oneDNN: the stride-1 ones on 8 x 8 and
  // 4 x 4 planes (layers 1-2) on its Winograd where it has one; the three 1x1 stride-2 shortcuts,
  // one GEMM over their subsampled input by shape, read and feed only those: they join them.
  const auto lines = driver::describeConvAlgorithms(pef, ConvAlgoRequest::Auto);
  REQUIRE(lines.size() == 2 + 20);  // summary, header, ResNet-18's 20 convolutions
  INFO(lines[0]);
  const bool oneDnnWino = runtime::kernels::oneDnnWinogradAvailable();
  CHECK(lines[0].find(oneDnnWino ? "(--conv-algo auto): 13 onednn, 7 onednn-winograd"
                                 : "(--conv-algo auto): 20 onednn") != std::string::npos);
  CHECK(countContaining(lines, "onednn    auto: oneDNN direct") == (oneDnnWino ? 10 : 17));
  CHECK(countContaining(lines, "onednn-winograd auto: 3x3 stride 1 on 16+ channels") == (oneDnnWino ? 7 : 0));
  CHECK(countContaining(lines, "onednn    auto: linked to convolutions on oneDNN, joins them") == 3);
  // Asked for F(4x4): the 13 3x3 stride-1 convs take it, those on 256 and 512 channels F(2x2) (its
  // error bound), the rest stay on GEMM, saying why.
  const auto wino = driver::describeConvAlgorithms(pef, ConvAlgoRequest::Winograd4);
  CHECK(wino[0].find("(--conv-algo winograd4): 7 gemm, 6 winograd2, 7 winograd4") != std::string::npos);
  CHECK(countContaining(wino, "stride not 1") == 3);    // the downsampling blocks' first convs
  CHECK(countContaining(wino, "kernel not 3x3") == 4);  // the stem's 7x7, the 1x1 shortcuts
  const auto gemm = driver::describeConvAlgorithms(pef, ConvAlgoRequest::Gemm);
  CHECK(gemm[0].find("(--conv-algo gemm): 20 gemm") != std::string::npos);

  std::string autoAlgos;  // -o3: one section holds all 20 convs
  for (const std::string& a : tracedAlgos(pef, ConvAlgoRequest::Auto)) autoAlgos += a;
  CHECK(autoAlgos == (oneDnnWino ? "onednn x13, onednn-winograd x7" : "onednn"));
  const auto algos = tracedAlgos(pef, ConvAlgoRequest::Winograd4);
  REQUIRE(algos.size() == pef.plan.sections.size());
  std::string all;
  for (const std::string& a : algos) all += a + ";";
  CHECK(all.find("winograd4") != std::string::npos);
  CHECK(all.find("gemm") != std::string::npos);
  for (const std::string& a : tracedAlgos(pef, ConvAlgoRequest::Gemm))
    CHECK((a.empty() || a == "gemm"));
}

TEST_CASE("a Winograd conv over 128 channels or more keeps Winograd, a narrower one joins oneDNN",
          "[driver][winograd]") {
  test::ScratchDir dir("conv-algo-keeps-winograd");
  // 64x64, batch 32: layer 1's 3x3s (64 channels, 16x16: 512 F(4x4) tiles) and
  // layer 2's stride-1 3x3s (128 channels, 8x8: 128 tiles) are F(4x4) by the
  // model; both are linked to convs on oneDNN. Layer 1's join them, layer 2's three keep F(4x4).
  // Where oneDNN has a Winograd conv, every 3x3 stride-1 conv on 4 x 4 planes or more (layers 1-3) takes
  // it instead, and this rule only applies elsewhere.
  const pef::Pef pef = compileSmallResnet(dir, 64, 32);
  const auto lines = driver::describeConvAlgorithms(pef, ConvAlgoRequest::Auto);
  REQUIRE(!lines.empty());
  INFO(lines[0]);
  if (runtime::kernels::oneDnnWinogradAvailable()) {
    CHECK(lines[0].find("(--conv-algo auto): 10 onednn, 10 onednn-winograd") != std::string::npos);
    return;
  }
  CHECK(lines[0].find("(--conv-algo auto): 3 winograd4, 17 onednn") != std::string::npos);
  int layer1Joins = 0, layer2Kept = 0;
  for (const std::string& line : lines) {
    const bool joins = line.find("onednn    auto: linked to convolutions on oneDNN, joins them") != std::string::npos;
    const bool keeps = line.find("winograd4 auto: F(4x4) needs the fewest modelled multiplies") != std::string::npos;
    layer1Joins += joins && line.find("x[32,64,16,16] w[64,64,3x3] s1") != std::string::npos;
    layer2Kept += keeps && line.find("x[32,128,8,8] w[128,128,3x3] s1") != std::string::npos;
  }
  CHECK(layer1Joins == 4);
  CHECK(layer2Kept == 3);
}
