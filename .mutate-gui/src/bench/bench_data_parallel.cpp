// Data parallel on this machine: LeNet (batch 32 per rank, -o3, 1 thread per
// rank) trained by 1 rank and by 2 ranks under mpirun (weak scaling: each rank
// keeps its batch, so 2 ranks train a global batch of 64), from one run each:
// samples/s, the scaling efficiency (2-rank samples/s over twice the 1-rank
// figure), the measured time per allreduce call inside training (MPI wait for
// the slower rank included) against the cost model's estimate for the modelled
// chip's link, and the bare MPI allreduce of the same bucket timed after a
// synchronizing collective (this program run again under mpirun as a probe).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "dist/Communicator.h"
#include "driver/compile/Compiler.h"

using namespace dfc;

namespace {

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench_data_parallel: %s\n", what.c_str());
  std::exit(1);
}

std::string shell(const std::string& command) {
  std::string out;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) die("cannot run " + command);
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  if (pclose(pipe) != 0) die(command + " failed:\n" + out);
  return out;
}

double number(const std::string& text, const std::string& pattern) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(pattern))) die("no '" + pattern + "' in:\n" + text);
  return std::stod(m[1].str());
}

std::string compileLenet(const std::string& dir, const std::string& name, int worldSize) {
  driver::CompileOptions c;
  c.model = "lenet";
  c.batchSize = 32;
  c.pefName = name;
  c.outputFolder = dir + "/" + name;
  c.dbPath = "-";
  c.dataParallel = worldSize > 1;
  c.worldSize = worldSize > 1 ? worldSize : 0;
  auto r = driver::compile(c);
  if (!r) die(r.error().message());
  return r->pefPath;
}

// Under mpirun: the median of `reps` allreduces of `floats` floats, each after an allgather that lines the ranks up.
int probe(size_t floats, int reps) {
  auto comm = dist::makeMpiCommunicator();
  if (!comm) die(comm.error().message());
  std::vector<float> data(floats, 1.0f);
  std::vector<double> us;
  for (int i = 0; i < reps; ++i) {
    if (!(*comm)->allgather(0)) die("allgather failed");
    auto t0 = std::chrono::steady_clock::now();
    if (!(*comm)->allreduceAverage(data)) die("allreduce failed");
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(us.begin(), us.begin() + reps / 2, us.end());
  if ((*comm)->rank() == 0) std::printf("probe_median_us %.1f\n", us[static_cast<size_t>(reps / 2)]);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  spdlog::set_level(spdlog::level::warn);
  if (argc == 4 && std::string(argv[1]) == "--probe") return probe(std::stoul(argv[2]), std::stoi(argv[3]));
  const std::string dfc = std::string(DFC_BINARY_DIR) + "/app/dfc/dfc";
  const std::string mpirun = std::string(DFC_MPIEXEC) + " --oversubscribe --allow-run-as-root -np 2 ";
  const std::string dir = (std::filesystem::temp_directory_path() / "bench_data_parallel").string();
  std::filesystem::create_directories(dir);
  const int steps = 200;
  const std::string common = " --threads 1 --test-limit 32 --log-every 100000 --db - --data-folder /usr/share/datasets/fashion-mnist";

  const std::string single = compileLenet(dir, "single", 1), parallel = compileLenet(dir, "parallel", 2);
  const std::string one = shell(dfc + " run --pef " + single + common + " --train-limit " + std::to_string(32 * steps));
  const std::string two = shell(mpirun + dfc + " run --data-parallel --pef " + parallel + common + " --train-limit " +
                                std::to_string(64 * steps));
  const double s1 = number(one, R"(([0-9.]+) samples/s;)"), s2 = number(two, R"(([0-9.]+) samples/s;)");
  const double measured = number(two, R"(measured ([0-9.]+) us per call)");
  const double estimated = number(two, R"(\(estimated ([0-9.]+) us\))");
  const double megabytes = number(two, R"(allreduces, ([0-9.]+) MB)");
  const double calls = number(two, R"(; ([0-9]+) allreduces)");
  const size_t bucketFloats = static_cast<size_t>(megabytes * 1e6 / calls / 4 + 0.5);
  const std::string probed = shell(mpirun + std::string(argv[0]) + " --probe " + std::to_string(bucketFloats) + " 200");
  const double bare = number(probed, R"(probe_median_us ([0-9.]+))");

  std::printf("lenet, batch 32 per rank, -o3, 1 thread per rank, %d steps per rank, %u hardware threads\n", steps,
              std::thread::hardware_concurrency());
  std::printf("1 rank:  %8.0f samples/s\n", s1);
  std::printf("2 ranks: %8.0f samples/s (global batch 64)\n", s2);
  std::printf("scaling efficiency: %.0f %% (2-rank samples/s / (2 x 1-rank))\n", 100.0 * s2 / (2.0 * s1));
  std::printf("allreduce per step (1 bucket, %.0f KB): measured %.1f us in training (incl. waiting for the other rank), "
              "%.1f us bare MPI (median of 200, ranks lined up); cost model %.1f us on the modelled link\n",
              megabytes * 1e3 / calls, measured, bare, estimated);
  std::filesystem::remove_all(dir);
  return 0;
}
