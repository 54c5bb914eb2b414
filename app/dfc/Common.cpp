#include <charconv>
#include <cmath>
#include <cstdio>

#include "ArgParser.h"
#include "Commands.h"
#include "support/SizeBudget.h"

namespace dfc::cli {

namespace {

// One error line stays one readable line: a message that quotes a huge value
// keeps its head (file and context) and tail (what is wrong).
std::string lineOf(const std::string& message) {
  constexpr size_t kHead = 700, kTail = 300;
  if (message.size() <= kHead + kTail) return message;
  return message.substr(0, kHead) + " ... (" + std::to_string(message.size() - kHead - kTail) + " bytes cut) ... " +
         message.substr(message.size() - kTail);
}

}  // namespace

int reportError(const Error& error) {
  // Exit 2: the user's input is at fault. Exit 1: ours (or the system's), and the line says so.
  const bool bad = error.kind() == ErrorKind::BadInput;
  std::fprintf(stderr, "dfc: %s: %s\n", bad ? "error" : "internal error", lineOf(error.message()).c_str());
  return bad ? 2 : 1;
}

int usageError(const std::string& message) {
  std::fprintf(stderr, "dfc: error: %s\n", lineOf(message).c_str());
  return 2;
}

Expected<int64_t> parseInt(const std::string& flag, const std::string& text) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size())
    return makeError(flag + ": '" + clipped(text) + "' is not an integer");
  return v;
}

Expected<double> parseDouble(const std::string& flag, const std::string& text) {
  double v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size()) return makeError(flag + ": '" + clipped(text) + "' is not a number");
  if (!std::isfinite(v)) return makeError(flag + ": '" + clipped(text) + "' is not a finite number");
  return v;
}

void addMaxMemoryFlag(ArgParser& p) {
  p.add({{"--max-memory"}, "SIZE", 1,
         "refuse inputs that declare more memory than SIZE (e.g. 8G, 512M; default: this machine's memory, " +
             support::formatBytes(support::machineMemoryBytes()) + ")"});
}

void addConvAlgoFlag(ArgParser& p, const char* what) {
  p.add(
      {{"--conv-algo"},
       "NAME",
       1,
       std::string(what) +
           ": auto (the default: per convolution, a 1x1 stride-1 one as one GEMM on the input (with weights no "
           "training step changes, on batches of at most 64 pixels or expanding at most 128 channels (on AMD CPUs, "
           "any), planes of at least 16 pixels, on the NCHW pointwise kernel where the CPU has AVX-512), an unpadded "
           "1x1 strided one as "
           "one GEMM on its subsampled input, with weights no training step changes a 3x3 stride-1 one on at "
           "least 16 input channels, outputs at least 4 x 4 and pads of at most 1 on oneDNN's Winograd convolution "
           "(onednn-winograd) where oneDNN has one for the CPU (AVX-512), else a 3x3 stride-1 one "
           "with at least 128 F(4x4) tiles in the batch as F(2x2,3x3) or F(4x4,3x3) where the multiplies modelled "
           "from its shape, transforms included, are fewer than GEMM's, a 3x3 stride-2 one on at most 4 input "
           "channels (a network's stem) on the NCHW stem kernel where the CPU has AVX-512, and, with weights no "
           "training step changes, a depthwise one (one input channel per group) on the direct depthwise kernel (NCHW "
           "loops, 16 channels in AVX-512 lanes, or on AMD CPUs 3x3 rows at least 56 outputs wide (28 at stride 2) "
           "read in place), "
           "and the rest, "
           "grouped and dilated ones included, on oneDNN's convolution primitive; then, with weights no training step "
           "changes, one linked to convolutions on oneDNN (its input or output passing only between convolutions) "
           "joins them there, the tensors between them held channels-last, unless it is a Winograd one over at "
           "least 128 channels), "
           "gemm (im2col + GEMM; grouped and "
           "dilated ones on the direct loop), winograd2, "
           "winograd4 or onednn (every forward convolution on oneDNN). Winograd runs only 3x3 stride-1 forward and "
           "input-gradient convolutions (others stay on GEMM); F(4x4) is refused above " +
           std::to_string(runtime::kWinograd4MaxChannels) +
           " input channels, where its error nears 1e-5 of the output's magnitude, and F(2x2) runs instead"});
}

std::optional<int> applyConvAlgo(const ArgParser& p, runtime::ConvAlgoRequest& request) {
  if (!p.has("--conv-algo")) return std::nullopt;
  auto parsed = runtime::parseConvAlgoRequest("--conv-algo", p.get("--conv-algo"));
  if (!parsed) return reportError(parsed.error());
  request = *parsed;
  return std::nullopt;
}

std::optional<int> applyMaxMemory(const ArgParser& p) {
  if (!p.has("--max-memory")) return std::nullopt;
  auto bytes = support::parseByteSize("--max-memory", p.get("--max-memory"));
  if (!bytes) return reportError(bytes.error());
  support::setMemoryBudget(*bytes);
  return std::nullopt;
}

}  // namespace dfc::cli
