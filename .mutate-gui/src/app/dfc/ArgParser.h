#pragma once
// A small command-line parser for dfc: flags declared as data, so --help
// lists exactly what is accepted, and every error names the flag.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dfc::cli {

struct FlagSpec {
  std::vector<std::string> names;  // {"-b", "--batch-size"}
  std::string metavar;             // "" for a switch; "N", "FILE", ...
  int arity = 1;                   // values taken (0 for a switch)
  std::string help;
  bool experimental = false;       // shown with --debug only
  bool notImplemented = false;     // accepted by the parser, refused by the command
};

class ArgParser {
 public:
  ArgParser(std::string command, std::string summary) : m_command(std::move(command)), m_summary(std::move(summary)) {}
  void add(FlagSpec spec) { m_specs.push_back(std::move(spec)); }

  // Returns an error message, or "" on success.
  std::string parse(const std::vector<std::string>& args);
  std::string help(bool showExperimental) const;

  bool has(const std::string& name) const;
  std::string get(const std::string& name, const std::string& fallback = {}) const;
  std::vector<std::string> getAll(const std::string& name) const;
  std::vector<std::string> positional() const { return m_positional; }
  // The first not-implemented flag given, if any.
  std::optional<std::string> notImplementedFlag() const;

 private:
  const FlagSpec* find(const std::string& name) const;
  std::string canonical(const FlagSpec& spec) const { return spec.names.back(); }
  std::string m_command, m_summary;
  std::vector<FlagSpec> m_specs;
  std::map<std::string, std::vector<std::string>> m_values;  // canonical name -> values
  std::vector<std::string> m_positional;
};

}  // namespace dfc::cli
