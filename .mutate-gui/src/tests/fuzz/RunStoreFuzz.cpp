// The run store: a SQLite file handed over as --db (issue 36: a hostile store
// crashed, hung or ran its own code). The input is the file; every query the
// CLI and dfstudio make of a store runs on it, under a short statement deadline.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "FuzzTargets.h"
#include "profile/RunStore.h"

namespace dfc::fuzz {

void runStore(const uint8_t* data, size_t size) {
  char path[] = "/tmp/dfc-fuzz-store-XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) return;
  bool written = ::write(fd, data, size) == static_cast<ssize_t>(size);
  ::close(fd);
  if (written) {
    if (auto store = profile::RunStore::open(path, std::chrono::milliseconds(200))) {
      (void)store->listCompiles();
      (void)store->latestRunForPef("/x.pef");
      (void)store->latestCompileForPef("/x.pef");
      if (auto runs = store->listRuns(); runs && !runs->empty()) {
        (void)store->sectionCalls(runs->front().id);
        (void)store->metrics(runs->front().id);
        if (runs->front().compileId) (void)store->sectionsOfCompile(*runs->front().compileId);
      }
      (void)store->schemaVersion();
    }
  }
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::remove((std::string(path) + suffix).c_str());
}

}  // namespace dfc::fuzz

DFC_FUZZ_ENTRY(runStore)
