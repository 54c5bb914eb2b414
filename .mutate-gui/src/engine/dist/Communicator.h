#pragma once
// The collectives a data-parallel run needs, as an interface: MPI between
// processes (MpiCommunicator.cpp), a world of one (a run with --data-parallel
// but without mpirun), and an in-process group of threads for unit tests. The
// runtime reaches it through its ExecContext; nothing else in the engine talks
// to MPI, and MPI is initialised only when a run asks for --data-parallel.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "support/Error.h"

namespace dfc::dist {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int worldSize() const = 0;
  // Sums `data` over every rank in place, then divides by worldSize(); every
  // rank ends with the same bits.
  virtual Status allreduceAverage(std::span<float> data) = 0;
  // Every rank's value, in rank order, on every rank.
  virtual Expected<std::vector<uint64_t>> allgather(uint64_t value) = 0;
  // Rank 0 gets every rank's text in rank order; the other ranks an empty vector.
  virtual Expected<std::vector<std::string>> gatherToRoot(const std::string& text) = 0;
  // "MPI (Open MPI v4.1.4)", "single process": for logs and the run record.
  virtual std::string describe() const = 0;

  // Point-to-point, for the allreduce algorithms (dist/Allreduce.h). Each post
  // starts one transfer and returns its ticket; wait() completes the tickets
  // given. A buffer stays untouched (and alive) until its ticket is waited on.
  // Messages from one rank to another with one tag arrive in the order sent,
  // and receives match them in the order they were posted (as in MPI).
  using Ticket = uint64_t;
  virtual Expected<Ticket> postSend(int to, int tag, std::span<const float> data) = 0;
  virtual Expected<Ticket> postRecv(int from, int tag, std::span<float> data) = 0;
  virtual Status wait(std::span<const Ticket> tickets) = 0;
  // Ranks that share this rank's host (MPI_COMM_TYPE_SHARED), when every host
  // holds the same number of consecutive ranks; 0 when the ranks are not laid
  // out that way. An in-process group is one host.
  virtual Expected<int> ranksPerHost() = 0;
};

// A world of one: allreduce leaves the data as it is.
std::unique_ptr<Communicator> makeSoloCommunicator();

// True when this process was started by mpirun (or another MPI launcher):
// the launcher's environment variables are set.
bool launchedByMpiLauncher();

// Initialises MPI (once per process) and returns MPI_COMM_WORLD. MPI errors
// return to the caller (MPI_ERRORS_RETURN) rather than aborting in silence;
// a peer that dies is noticed by mpirun, which ends the job. Fails with a
// clear message when this build has no MPI.
Expected<std::unique_ptr<Communicator>> makeMpiCommunicator();
bool mpiAvailable();  // this build links MPI

// `size` ranks as threads of one process, for tests: rank(r) is used by one
// thread each, and every rank must call the same collectives in the same order.
class InProcessGroup {
 public:
  explicit InProcessGroup(int size);
  ~InProcessGroup();
  InProcessGroup(const InProcessGroup&) = delete;
  InProcessGroup& operator=(const InProcessGroup&) = delete;
  Communicator& rank(int r);
  int size() const;

 private:
  struct Shared;
  class Member;
  std::unique_ptr<Shared> m_shared;
  std::vector<std::unique_ptr<Member>> m_members;
};

}  // namespace dfc::dist
