#include "testing/cli_runner.hpp"

#include <nlohmann/json.hpp>
#include <sstream>

#include "testing/binaries.hpp"
#include "testing/json_util.hpp"

namespace agentworks::testing {

nlohmann::json CliResult::json() const { return parse_json(out); }

std::string CliResult::error_code() const { return error_code_of(out); }

std::string CliResult::describe() const {
  std::ostringstream ss;
  ss << "agentworks";
  for (const auto& a : args) ss << ' ' << (a.size() > 200 ? a.substr(0, 200) + "...(" + std::to_string(a.size()) + " bytes)" : a);
  ss << "\n-> exit " << exit_code << (timed_out ? " (TIMED OUT)" : "") << "\n--- stdout ---\n"
     << out.substr(0, 4000) << "\n--- stderr ---\n"
     << err.substr(0, 4000) << "\n";
  return ss.str();
}

CliResult run_cli(const std::vector<std::string>& args, const EnvOverrides& env,
                  const std::optional<std::string>& stdin_data, std::chrono::milliseconds timeout) {
  std::vector<std::string> argv = {cli_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  CliResult result;
  static_cast<ProcessResult&>(result) = run_process(argv, RunOptions{env, stdin_data, timeout, {}});
  result.args = args;
  return result;
}

Cli::Cli(EnvOverrides env, std::filesystem::path config_path) : env_(std::move(env)) {
  if (!config_path.empty()) env_["AGENTWORKS_CONFIG"] = config_path.string();
}

CliResult Cli::run(const std::vector<std::string>& args, const std::optional<std::string>& stdin_data,
                   std::chrono::milliseconds timeout) const {
  return run_cli(args, env_, stdin_data, timeout);
}

CliResult Cli::json(const std::vector<std::string>& args, const std::optional<std::string>& stdin_data,
                    std::chrono::milliseconds timeout) const {
  std::vector<std::string> with_json = args;
  with_json.push_back("--json");
  return run(with_json, stdin_data, timeout);
}

CliResult Cli::login(const std::string& url, const std::string& token) const {
  return run({"login", "--server", url, "--token-stdin"}, token + "\n");
}

Child Cli::start(const std::vector<std::string>& args, const std::filesystem::path& dir, const std::string& tag) const {
  std::vector<std::string> argv = {cli_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  return Child::start(argv, env_, dir / (tag + ".stdout"), dir / (tag + ".stderr"));
}

}  // namespace agentworks::testing
