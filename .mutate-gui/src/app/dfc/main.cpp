// dfc: the command-line twin of Dataflow Studio. compile -> PEF -> run.
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "Commands.h"
#include "support/SizeBudget.h"

namespace {

int dispatch(std::vector<std::string> args) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    std::fputs(dfc::cli::usageText().c_str(), stdout);
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::printf("dfc %s\n", DFC_VERSION);
    return 0;
  }
  std::string command = args[0];
  args.erase(args.begin());
  return dfc::cli::runNamedCommand(command, args);
}

}  // namespace

int main(int argc, char** argv) {
  // Bad input is refused before anything is allocated or computed; an exception
  // reaching here is our failure, so it says so (exit 1) instead of aborting.
  try {
    return dispatch(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "dfc: internal error: out of memory (memory budget %s; --max-memory refuses large inputs earlier)\n",
                 dfc::support::formatBytes(dfc::support::memoryBudget()).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dfc: internal error: %s\n", e.what());
  }
  return 1;
}
