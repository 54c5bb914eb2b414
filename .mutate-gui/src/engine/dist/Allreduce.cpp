#include "dist/Allreduce.h"

#include <spdlog/spdlog.h>

#include <array>
#include <utility>

namespace dfc::dist {
namespace {

constexpr std::array<std::pair<AllreduceAlgorithm, std::string_view>, 4> kAlgorithms = {{
    {AllreduceAlgorithm::Mpi, "mpi"},
    {AllreduceAlgorithm::Ring, "ring"},
    {AllreduceAlgorithm::Tree, "tree"},
    {AllreduceAlgorithm::Ring2d, "2d-ring"},
}};

// 2d-ring's hosts: the override, else MPI's (one rank per host when its layout is not regular).
Expected<int> resolveRanksPerHost(Communicator& inner, int requested, std::string& note) {
  const int world = inner.worldSize();
  if (requested > 0) {
    if (world % requested != 0)
      return makeError("--ranks-per-host " + std::to_string(requested) + ": does not divide the " +
                       std::to_string(world) + " ranks");
    return requested;
  }
  auto local = inner.ranksPerHost();
  if (!local) return local.error();
  if (*local >= 1 && world % *local == 0) return *local;
  note = "2d-ring: the ranks are not laid out as equal blocks of consecutive ranks per host; running one rank per host "
         "(a ring across all ranks)";
  return 1;
}

}  // namespace

std::optional<AllreduceAlgorithm> parseAllreduceAlgorithm(std::string_view name) {
  for (const auto& [algorithm, text] : kAlgorithms)
    if (text == name) return algorithm;
  return std::nullopt;
}

std::string_view allreduceAlgorithmName(AllreduceAlgorithm algorithm) {
  for (const auto& [a, text] : kAlgorithms)
    if (a == algorithm) return text;
  return "?";
}

std::string allreduceAlgorithmList() {
  std::string out;
  for (const auto& [algorithm, text] : kAlgorithms) out += (out.empty() ? "" : ", ") + std::string(text);
  return out;
}

Expected<std::unique_ptr<AllreduceCommunicator>> AllreduceCommunicator::make(Communicator& inner,
                                                                              const AllreduceSettings& settings) {
  std::unique_ptr<AllreduceCommunicator> out(new AllreduceCommunicator(inner, settings));
  if (settings.algorithm == AllreduceAlgorithm::Ring2d) {
    auto local = resolveRanksPerHost(inner, settings.ranksPerHost, out->m_note);
    if (!local) return local.error();
    out->m_settings.ranksPerHost = *local;
    if (!out->m_note.empty() && inner.rank() == 0) spdlog::warn("{}", out->m_note);
  } else {
    out->m_settings.ranksPerHost = 1;
  }
  return out;
}

std::string AllreduceCommunicator::describe() const {
  std::string text = m_inner.describe() + ", allreduce " + std::string(allreduceAlgorithmName(algorithm()));
  if (algorithm() == AllreduceAlgorithm::Ring2d)
    text += " (" + std::to_string(hosts()) + " hosts x " + std::to_string(m_settings.ranksPerHost) + " ranks)";
  return text;
}

Status AllreduceCommunicator::allreduceAverage(std::span<float> data) {
  const int p = worldSize();
  switch (algorithm()) {
    case AllreduceAlgorithm::Mpi: return m_inner.allreduceAverage(data);
    case AllreduceAlgorithm::Ring: DFC_TRY(ringAllreduceSum(m_inner, data, &m_phases)); break;
    case AllreduceAlgorithm::Tree: DFC_TRY(treeAllreduceSum(m_inner, data, m_settings.treeChunkFloats, &m_phases)); break;
    case AllreduceAlgorithm::Ring2d:
      DFC_TRY(ring2dAllreduceSum(m_inner, data, m_settings.ranksPerHost, &m_phases));
      break;
  }
  // As MpiCommunicator does after MPI_Allreduce: times the inverse, so equal sums average to equal bits.
  const float inv = 1.0f / static_cast<float>(p);
  for (float& v : data) v *= inv;
  return {};
}

}  // namespace dfc::dist
