#include "driver/compile/StoreRecords.h"

namespace dfc::driver {

Expected<profile::RunStore> openStore(const std::string& dbPath) {
  return profile::RunStore::open(dbPath.empty() ? profile::RunStore::defaultPath() : dbPath);
}

std::string joinArgs(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& a : args) {
    if (!out.empty()) out += ' ';
    out += a;
  }
  return out;
}

Expected<int64_t> recordCompile(const std::string& dbPath, const pef::Pef& pef, const CompileResult& result) {
  auto store = openStore(dbPath);
  if (!store) return store.error();
  profile::CompileRecord rec;
  rec.pefPath = result.pefPath;
  rec.pefName = pef.meta.pefName;
  rec.model = pef.meta.model;
  rec.args = joinArgs(pef.meta.args);
  rec.optLevel = pef.meta.optLevel;
  rec.arch = pef.meta.arch;
  rec.batchSize = static_cast<int>(pef.meta.batchSize);
  rec.inference = pef.meta.inference;
  rec.startedAt = pef.meta.createdAt;
  rec.durationMs = result.compileMs;
  for (const auto& s : pef.plan.sections) {
    profile::SectionRecord sr;
    sr.sectionId = s.id;
    sr.name = s.name;
    sr.type = std::string(ir::roleName(s.type));
    sr.hyperfunction = s.hyperfunction;
    sr.hypersection = pef.plan.hypersections.at(static_cast<size_t>(s.hypersection)).name;
    sr.numNodes = static_cast<int>(s.nodes.size());
    sr.pcus = s.estimate.pcus;
    sr.pmus = s.estimate.pmus;
    sr.estLatencyUs = s.estimate.latencyUs;
    sr.flop = s.estimate.flop;
    rec.sections.push_back(std::move(sr));
  }
  return store->recordCompile(rec);
}

}  // namespace dfc::driver
