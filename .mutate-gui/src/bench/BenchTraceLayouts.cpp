#include "BenchTraceLayouts.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace dfc::bench {
namespace {

const char* const kRoles[] = {"forward", "backward", "optimizer"};
constexpr int kSectionsPerStep = 48;
constexpr int kHyperfunctionRows = 12;

struct Writer {
  FILE* f = nullptr;
  size_t slices = 0;
  unsigned seed = 12345;
  unsigned next() { return seed = seed * 1103515245u + 12345u; }
  double jitter(double base, double spread) { return base + spread * ((next() >> 8) % 1000) / 1000.0; }
};

void writeOursHeader(Writer& w) {
  std::fputs("{\"traceEvents\":[\n", w.f);
  std::fputs("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"ts\":0,\"args\":{\"name\":\"bench (rank 0)\"}},\n", w.f);
  std::fputs("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":0,\"ts\":0,\"args\":{\"name\":\"whole model run\"}},\n", w.f);
  std::fputs("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"ts\":0,\"args\":{\"name\":\"host\"}},\n", w.f);
  for (int h = 0; h < kHyperfunctionRows; ++h)
    std::fprintf(w.f, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":%d,\"ts\":0,\"args\":{\"name\":\"layer%d\"}},\n",
                 h + 2, h);
}

void writeOursFooter(Writer& w) {
  std::fputs("{\"ph\":\"i\",\"name\":\"run end\",\"pid\":1,\"tid\":1,\"ts\":0,\"s\":\"t\"}\n],\"displayTimeUnit\":\"ms\",", w.f);
  std::fputs("\"otherData\":{\"model\":\"bench\",\"pef_hash\":\"0123456789abcdef\",", w.f);
  std::fputs("\"mirrors\":{\"category\":\"mirror\",\"of_tid\":0},\"sections\":{", w.f);
  for (int s = 0; s < kSectionsPerStep; ++s)
    std::fprintf(w.f, "%s\"%d\":{\"name\":\"sec%d\",\"hypersection\":\"hs%d_op\",\"type\":\"%s\",\"pcus\":%d,\"pmus\":%d}",
                 s ? "," : "", s, s, s % 17, kRoles[s * 3 / kSectionsPerStep], 4 + s % 9, 2 + s % 5);
  std::fputs("}}}\n", w.f);
}

// One step: every section called once on the whole-model row and mirrored on
// its hyperfunction row, a host phase before and after, a loss sample.
void writeOursStep(Writer& w, long step, double& t, size_t limit) {
  std::fprintf(w.f, "{\"ph\":\"X\",\"name\":\"input transfer\",\"cat\":\"host\",\"pid\":1,\"tid\":1,\"ts\":%.3f,\"dur\":%.3f},\n",
               t, 3.0);
  t += 3.5;
  ++w.slices;
  for (int s = 0; s < kSectionsPerStep && w.slices + 2 <= limit; ++s) {
    const double dur = w.jitter(8.0, 4.0);
    const char* role = kRoles[s * 3 / kSectionsPerStep];
    std::fprintf(w.f,
                 "{\"ph\":\"X\",\"name\":\"hs%d_op\",\"cat\":\"%s\",\"pid\":1,\"tid\":0,\"ts\":%.3f,\"dur\":%.3f,\"args\":"
                 "{\"section_id\":%d,\"step\":%ld,\"est_latency_us\":%.4g,\"host_gbps\":%.4g}},\n",
                 s % 17, role, t, dur, s, step, 2.5 + s % 7, w.jitter(1.0, 3.0));
    std::fprintf(w.f,
                 "{\"ph\":\"X\",\"name\":\"hs%d_op\",\"cat\":\"%s,mirror\",\"pid\":1,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,"
                 "\"args\":{\"section_id\":%d,\"step\":%ld}},\n",
                 s % 17, role, 2 + s % kHyperfunctionRows, t, dur, s, step);
    t += dur + 0.25;
    w.slices += 2;
  }
  std::fprintf(w.f, "{\"ph\":\"C\",\"name\":\"loss\",\"pid\":1,\"tid\":0,\"ts\":%.3f,\"args\":{\"loss\":%.4f}},\n", t,
               2.0 / (1.0 + static_cast<double>(step) / 100.0));
  t += 1.0;
}

void writeOurs(Writer& w, size_t slices) {
  writeOursHeader(w);
  double t = 0;
  for (long step = 0; w.slices < slices; ++step) writeOursStep(w, step, t, slices);
  writeOursFooter(w);
}

void pytorchEvent(Writer& w, const char* cat, const char* name, int pid, int tid, double ts, double dur, const std::string& args) {
  std::fprintf(w.f,
               "  {\n    \"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d,\n"
               "    \"ts\": %.3f, \"dur\": %.3f,\n    \"args\": {\n%s\n    }\n  },\n",
               cat, name, pid, tid, ts, dur, args.c_str());
  ++w.slices;
}

std::string opArgs(long id, const char* dims) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "      \"External id\": %ld,\"Record function id\": 0, \"Input Dims\": %s, \"Input type\": [\"float\", "
                "\"float\"], \"Ev Idx\": %ld",
                id, dims, id - 1);
  return buf;
}

std::string kernelArgs(long id) {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "      \"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": 7, \"correlation\": %ld, \"registers per "
                "thread\": 128, \"shared memory\": 16384, \"blocks per SM\": 2.5, \"grid\": [128, 1, 1], \"block\": [256, 1, "
                "1], \"est. achieved occupancy %%\": 50",
                id);
  return buf;
}

// One layer of a step: an aten op with two nested ops, each launching a kernel
// on a stream (a flow from the launch to the kernel), and its backward on the
// autograd thread.
void writeLayer(Writer& w, long& id, double& t, double& gpu) {
  const double base = 1.7e12;
  const double opDur = w.jitter(30, 20);
  pytorchEvent(w, "cpu_op", "aten::linear", 4242, 4242, base + t, opDur, opArgs(id++, "[[64, 512], [512, 512], [512]]"));
  for (int k = 0; k < 2; ++k) {
    const double start = t + 1 + k * opDur / 2;
    pytorchEvent(w, "cpu_op", k ? "aten::addmm" : "aten::t", 4242, 4242, base + start, opDur / 2 - 2,
                 opArgs(id++, "[[512, 512]]"));
    pytorchEvent(w, "cuda_runtime", "cudaLaunchKernel", 4242, 4242, base + start + 1, 4, opArgs(id, "[]"));
    std::fprintf(w.f, "  {\"ph\": \"s\", \"id\": %ld, \"pid\": 4242, \"tid\": 4242, \"ts\": %.3f, \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n",
                 id, base + start + 1);
    gpu = std::max(gpu, start + 3);
    const double kdur = w.jitter(12, 10);
    pytorchEvent(w, "kernel", "ampere_sgemm_128x64_tn", 0, 7 + k, base + gpu, kdur, kernelArgs(id++));
    gpu += kdur + 0.5;
  }
  pytorchEvent(w, "cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", 4242, 4300, base + t + opDur, opDur,
               opArgs(id++, "[[64, 512]]"));
  t += opDur + 1;
}

void writePyTorch(Writer& w, size_t slices) {
  std::fputs("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA A100\", \"totalGlobalMem\": "
             "42314694656}],\n  \"traceEvents\": [\n", w.f);
  std::fputs("  {\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": 4242, \"tid\": 0, \"args\": {\"name\": \"python3\"}},\n"
             "  {\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": 4242, \"tid\": 4242, \"args\": {\"name\": \"thread 4242 (python3)\"}},\n"
             "  {\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": 0, \"tid\": 0, \"args\": {\"name\": \"GPU 0\"}},\n",
             w.f);
  long id = 1;
  double t = 0, gpu = 0;
  for (long step = 0; w.slices < slices; ++step) {
    const double start = t;
    const size_t before = w.slices;
    for (int layer = 0; layer < 24 && w.slices + 9 <= slices; ++layer) writeLayer(w, id, t, gpu);
    if (w.slices == before) break;
    char name[64];
    std::snprintf(name, sizeof name, "ProfilerStep#%ld", step);
    pytorchEvent(w, "user_annotation", name, 4242, 4242, 1.7e12 + start - 0.5, t - start + 1, "      \"External id\": 0");
    t += 5;
  }
  std::fprintf(w.f,
               "  {\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"name\": \"end\", \"pid\": 4242, \"tid\": 4242, "
               "\"ts\": %.3f, \"s\": \"t\"}\n  ],\n  \"traceName\": \"bench.pt.trace.json\"\n}\n",
               1.7e12 + t);
}

}  // namespace

const char* layoutName(TraceLayout layout) { return layout == TraceLayout::Ours ? "ours" : "pytorch"; }

size_t writeBenchTrace(const std::string& path, size_t slices, TraceLayout layout) {
  Writer w;
  w.f = std::fopen(path.c_str(), "w");
  if (!w.f) return 0;
  if (layout == TraceLayout::Ours) writeOurs(w, slices);
  else writePyTorch(w, slices);
  const long size = std::ftell(w.f);
  const bool ok = std::fclose(w.f) == 0;
  std::printf("wrote %s (%s layout): %zu slices, %.1f MB\n", path.c_str(), layoutName(layout), w.slices,
              static_cast<double>(size) / 1e6);
  return ok ? w.slices : 0;
}

}  // namespace dfc::bench
