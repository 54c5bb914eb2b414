#pragma once
// Turns compile results into run-store records.
#include "driver/compile/Compiler.h"
#include "pef/Pef.h"
#include "profile/RunStore.h"

namespace dfc::driver {

// Opens the store at `dbPath` ("" = the default path).
Expected<profile::RunStore> openStore(const std::string& dbPath);
Expected<int64_t> recordCompile(const std::string& dbPath, const pef::Pef& pef, const CompileResult& result);
std::string joinArgs(const std::vector<std::string>& args);

}  // namespace dfc::driver
