#include "ArgParser.h"

#include <sstream>

namespace dfc::cli {

const FlagSpec* ArgParser::find(const std::string& name) const {
  for (const auto& s : m_specs)
    for (const auto& n : s.names)
      if (n == name) return &s;
  return nullptr;
}

std::string ArgParser::parse(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    std::optional<std::string> inlineValue;
    if (arg.starts_with("--") && arg.find('=') != std::string::npos) {
      inlineValue = arg.substr(arg.find('=') + 1);
      arg = arg.substr(0, arg.find('='));
    }
    if (!arg.starts_with("-") || arg == "-") {
      m_positional.push_back(arg);
      continue;
    }
    const FlagSpec* spec = find(arg);
    if (!spec) return "unknown option '" + arg + "' for '" + m_command + "' (see dfc " + m_command + " --help)";
    auto& values = m_values[canonical(*spec)];
    if (spec->arity == 0) {
      if (inlineValue) return "option '" + arg + "' takes no value";
      values.push_back("1");
      continue;
    }
    if (inlineValue) {
      if (spec->arity != 1) return "option '" + arg + "' takes " + std::to_string(spec->arity) + " values";
      values.push_back(*inlineValue);
      continue;
    }
    for (int k = 0; k < spec->arity; ++k) {
      // The next word is a value unless it is itself an option (values may be negative numbers).
      if (i + 1 >= args.size() || find(args[i + 1]) || args[i + 1].starts_with("--"))
        return "option '" + arg + "' needs " + (spec->arity == 1 ? "a value" : std::to_string(spec->arity) + " values") +
               " (" + spec->metavar + ")";
      values.push_back(args[++i]);
    }
  }
  return {};
}

bool ArgParser::has(const std::string& name) const {
  const FlagSpec* s = find(name);
  return s && m_values.count(canonical(*s));
}

std::string ArgParser::get(const std::string& name, const std::string& fallback) const {
  const FlagSpec* s = find(name);
  if (!s) return fallback;
  auto it = m_values.find(canonical(*s));
  return it == m_values.end() || it->second.empty() ? fallback : it->second.back();
}

std::vector<std::string> ArgParser::getAll(const std::string& name) const {
  const FlagSpec* s = find(name);
  if (!s) return {};
  auto it = m_values.find(canonical(*s));
  return it == m_values.end() ? std::vector<std::string>{} : it->second;
}

std::optional<std::string> ArgParser::notImplementedFlag() const {
  for (const auto& s : m_specs)
    if (s.notImplemented && m_values.count(canonical(s))) return canonical(s);
  return std::nullopt;
}

std::string ArgParser::help(bool showExperimental) const {
  std::ostringstream out;
  out << "usage: dfc " << m_command << " [options]\n" << m_summary << "\n\noptions:\n";
  auto print = [&](const FlagSpec& s) {
    std::string names;
    for (const auto& n : s.names) names += (names.empty() ? "" : ", ") + n;
    if (!s.metavar.empty()) names += " " + s.metavar;
    out << "  " << names;
    if (names.size() < 30) out << std::string(30 - names.size(), ' ');
    else out << "\n" << std::string(32, ' ');
    out << s.help << "\n";
  };
  for (const auto& s : m_specs)
    if (!s.experimental && !s.notImplemented) print(s);
  bool any = false;
  for (const auto& s : m_specs)
    if (s.notImplemented && (!s.experimental || showExperimental)) {
      if (!any) out << "\nnot implemented yet (accepted names, refused with exit status 2):\n";
      any = true;
      print(s);
    }
  if (showExperimental) {
    any = false;
    for (const auto& s : m_specs)
      if (s.experimental && !s.notImplemented) {
        if (!any) out << "\nexperimental:\n";
        any = true;
        print(s);
      }
  }
  return out.str();
}

}  // namespace dfc::cli
