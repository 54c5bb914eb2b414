// MPI_COMM_WORLD behind the Communicator interface. Built only when CMake
// finds MPI (DFC_HAVE_MPI); without it makeMpiCommunicator says so.
#include "dist/Communicator.h"

#ifdef DFC_HAVE_MPI
// The C API only: the deprecated C++ bindings need libmpi_cxx.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <climits>
#include <map>
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

  Expected<Ticket> postSend(int to, int tag, std::span<const float> data) override {
    DFC_TRY(checkCount(data.size()));
    MPI_Request request = MPI_REQUEST_NULL;
    DFC_TRY(checked(MPI_Isend(data.data(), static_cast<int>(data.size()), MPI_FLOAT, to, tag, MPI_COMM_WORLD, &request),
                    "isend"));
    return remember(request);
  }

  Expected<Ticket> postRecv(int from, int tag, std::span<float> data) override {
    DFC_TRY(checkCount(data.size()));
    MPI_Request request = MPI_REQUEST_NULL;
    DFC_TRY(checked(
        MPI_Irecv(data.data(), static_cast<int>(data.size()), MPI_FLOAT, from, tag, MPI_COMM_WORLD, &request), "irecv"));
    return remember(request);
  }

  Status wait(std::span<const Ticket> tickets) override {
    std::vector<MPI_Request> requests;
    requests.reserve(tickets.size());
    for (Ticket t : tickets) {
      auto it = m_requests.find(t);
      if (it == m_requests.end()) return internalError("MPI wait: unknown ticket " + std::to_string(t));
      requests.push_back(it->second);
      m_requests.erase(it);
    }
    return checked(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "waitall");
  }

  // Ranks sharing a host from MPI_COMM_TYPE_SHARED; 0 unless every host holds
  // the same number of consecutive ranks (mpirun's default by-slot mapping does).
  Expected<int> ranksPerHost() override {
    MPI_Comm local = MPI_COMM_NULL;
    DFC_TRY(checked(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, m_rank, MPI_INFO_NULL, &local),
                    "comm_split_type"));
    int localRank = 0, localSize = 1;
    MPI_Comm_rank(local, &localRank);
    MPI_Comm_size(local, &localSize);
    MPI_Comm_free(&local);
    auto sizes = allgather(static_cast<uint64_t>(localSize));
    if (!sizes) return sizes.error();
    const bool contiguous = m_rank % localSize == localRank;
    auto layoutOk = allgather(contiguous ? 1 : 0);
    if (!layoutOk) return layoutOk.error();
    for (size_t r = 0; r < sizes->size(); ++r)
      if ((*sizes)[r] != static_cast<uint64_t>(localSize) || (*layoutOk)[r] != 1) return 0;
    return localSize;
  }

 private:
  static Status checkCount(size_t floats) {
    if (floats > static_cast<size_t>(INT_MAX)) return makeError("MPI message of " + std::to_string(floats) + " floats: over INT_MAX");
    return {};
  }
  Ticket remember(MPI_Request request) {
    m_requests[++m_lastTicket] = request;
    return m_lastTicket;
  }

  int m_rank, m_size;
  std::string m_library;
  Ticket m_lastTicket = 0;
  std::map<Ticket, MPI_Request> m_requests;  // posted, not yet waited on
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
