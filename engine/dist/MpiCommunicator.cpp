// MPI_COMM_WORLD behind the Communicator interface. Built only when CMake
// finds MPI (DFC_HAVE_MPI); without it makeMpiCommunicator says so.
#include "dist/Communicator.h"

#ifdef DFC_HAVE_MPI
// The C API only: the deprecated C++ bindings need libmpi_cxx.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <climits>
#include <mutex>
#endif

namespace dfc::dist {

#ifdef DFC_HAVE_MPI
namespace {

std::string mpiErrorText(int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, static_cast<size_t>(length));
}

Status checked(int code, const char* what) {
  if (code == MPI_SUCCESS) return {};
  return makeError(std::string("MPI ") + what + " failed: " + mpiErrorText(code) +
                   " (a peer rank may have died; see mpirun's message)");
}

// Finalizes MPI at exit, once, after every communicator is gone.
void finalizeAtExit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator(int rank, int size, std::string library)
      : m_rank(rank), m_size(size), m_library(std::move(library)) {}
  int rank() const override { return m_rank; }
  int worldSize() const override { return m_size; }
  std::string describe() const override { return "MPI (" + m_library + ")"; }

  Status allreduceAverage(std::span<float> data) override {
    // MPI counts are ints: large buffers go in pieces.
    constexpr size_t kMaxCount = INT_MAX / 2;
    for (size_t at = 0; at < data.size(); at += kMaxCount) {
      const int count = static_cast<int>(std::min(kMaxCount, data.size() - at));
      DFC_TRY(checked(MPI_Allreduce(MPI_IN_PLACE, data.data() + at, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD),
                      "allreduce"));
    }
    const float inv = 1.0f / static_cast<float>(m_size);
    for (float& v : data) v *= inv;
    return {};
  }

  Expected<std::vector<uint64_t>> allgather(uint64_t value) override {
    std::vector<uint64_t> out(static_cast<size_t>(m_size));
    DFC_TRY(checked(MPI_Allgather(&value, 1, MPI_UINT64_T, out.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD), "allgather"));
    return out;
  }

  Expected<std::vector<std::string>> gatherToRoot(const std::string& text) override {
    if (text.size() > static_cast<size_t>(INT_MAX)) return makeError("gather: a rank's text is over 2 GB");
    int length = static_cast<int>(text.size());
    std::vector<int> lengths(static_cast<size_t>(m_size));
    DFC_TRY(checked(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "gather"));
    std::vector<int> offsets(static_cast<size_t>(m_size), 0);
    long long total = 0;
    for (size_t r = 0; r < lengths.size(); ++r) {
      offsets[r] = static_cast<int>(total);
      total += lengths[r];
    }
    if (m_rank == 0 && total > INT_MAX) return makeError("gather: the ranks' texts add up to over 2 GB");
    std::string all(m_rank == 0 ? static_cast<size_t>(total) : 0, '\0');
    DFC_TRY(checked(MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
                                MPI_COMM_WORLD),
                    "gatherv"));
    std::vector<std::string> out;
    if (m_rank != 0) return out;
    for (size_t r = 0; r < lengths.size(); ++r)
      out.push_back(all.substr(static_cast<size_t>(offsets[r]), static_cast<size_t>(lengths[r])));
    return out;
  }

 private:
  int m_rank, m_size;
  std::string m_library;
};

}  // namespace

bool mpiAvailable() { return true; }

Expected<std::unique_ptr<Communicator>> makeMpiCommunicator() {
  static std::once_flag once;
  static int initCode = MPI_SUCCESS;
  std::call_once(once, [] {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized) return;
    int provided = 0;
    initCode = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    if (initCode == MPI_SUCCESS) {
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
      std::atexit(finalizeAtExit);
    }
  });
  if (initCode != MPI_SUCCESS) return makeError("MPI_Init failed: " + mpiErrorText(initCode));
  int rank = 0, size = 1;
  DFC_TRY(checked(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "comm_rank"));
  DFC_TRY(checked(MPI_Comm_size(MPI_COMM_WORLD, &size), "comm_size"));
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::string library(version, static_cast<size_t>(length));
  if (auto comma = library.find(','); comma != std::string::npos) library.resize(comma);
  return std::unique_ptr<Communicator>(std::make_unique<MpiCommunicator>(rank, size, library));
}

#else

bool mpiAvailable() { return false; }

Expected<std::unique_ptr<Communicator>> makeMpiCommunicator() {
  return makeError("--data-parallel: this dfc was built without MPI (install libopenmpi-dev and rebuild)");
}

#endif

}  // namespace dfc::dist
