#include "driver/agent_env.hpp"

#include <fstream>
#include <regex>

#include "driver/cli_locator.hpp"
#include "mock_model/mock_model.hpp"

namespace agentworks::e2e {

using testing::EnvOverrides;

namespace {

EnvOverrides common_env(const testing::TempHome& home) {
  EnvOverrides env = home.env();
  env["PATH"] = path_with_tools();
  env["TERM"] = "xterm-256color";
  env["NO_COLOR"] = std::nullopt;
  // Nothing of the runner's own agent setup leaks in.
  for (const char* v : {"ANTHROPIC_AUTH_TOKEN", "CLAUDE_CONFIG_DIR", "CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT",
                        "CODEX_SANDBOX", "CODEX_THREAD_ID", "OPENAI_API_KEY", "OPENAI_BASE_URL"}) {
    env[v] = std::nullopt;
  }
  return env;
}

}  // namespace

EnvOverrides claude_env(const testing::TempHome& home, const MockModel& model) {
  EnvOverrides env = common_env(home);
  env["CODEX_HOME"] = std::nullopt;
  env["ANTHROPIC_BASE_URL"] = model.anthropic_base_url();
  env["ANTHROPIC_API_KEY"] = "sk-ant-mock-e2e-0123456789abcdefghij";
  env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1";
  env["DISABLE_AUTOUPDATER"] = "1";
  return env;
}

testing::ProcessResult run_claude(const EnvOverrides& env, const std::filesystem::path& project,
                                  const std::vector<std::string>& args, std::chrono::milliseconds timeout) {
  std::vector<std::string> argv{claude_binary().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  testing::RunOptions options;
  options.env = env;
  options.cwd = project;
  options.timeout = timeout;
  return testing::run_process(argv, options);
}

EnvOverrides codex_env(const testing::TempHome& home, const MockModel& model, const std::string& key_variable) {
  const auto codex_home = home.path("codex-home");
  std::filesystem::create_directories(codex_home);
  std::ofstream(codex_home / "config.toml")
      << "model_provider = \"mock\"\n"
         "model = \"gpt-mock\"\n"
         "[model_providers.mock]\n"
         "name = \"mock\"\n"
         "base_url = \"" << model.openai_base_url() << "\"\n"
         "wire_api = \"responses\"\n"
         "env_key = \"" << key_variable << "\"\n"
         "request_max_retries = 0\n"
         "stream_max_retries = 0\n"
         "[analytics]\n"
         "enabled = false\n"
         "[features]\n"
         "plugins = false\n";
  EnvOverrides env = common_env(home);
  env["CODEX_HOME"] = codex_home.string();
  env[key_variable] = "mock-e2e-key";
  return env;
}

testing::ProcessResult run_codex(const EnvOverrides& env, const std::filesystem::path& project,
                                 const std::vector<std::string>& args, std::chrono::milliseconds timeout) {
  std::vector<std::string> argv{codex_binary().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  testing::RunOptions options;
  options.env = env;
  options.cwd = project;
  options.timeout = timeout;
  return testing::run_process(argv, options);
}

std::string codex_session_id(const testing::ProcessResult& run) {
  static const std::regex line(R"(session id: ([0-9a-f-]+))");
  std::smatch m;
  if (std::regex_search(run.err, m, line) || std::regex_search(run.out, m, line)) return m[1].str();
  return "";
}

EnvOverrides pi_env(const testing::TempHome& home, const MockModel& model) {
  const auto agent_dir = home.path("pi-agent");
  std::filesystem::create_directories(agent_dir);
  std::ofstream(agent_dir / "models.json")
      << R"({"providers":{"mock":{"baseUrl":")" << model.anthropic_base_url()
      << R"(","api":"anthropic-messages","apiKey":"mock-e2e-key","models":[{"id":"mock-model","reasoning":false}]}}})";
  EnvOverrides env = common_env(home);
  env["PI_CODING_AGENT_DIR"] = agent_dir.string();
  env["PI_SKIP_VERSION_CHECK"] = "1";
  env["PI_OFFLINE"] = "1";
  env["PI_TELEMETRY"] = "0";
  env["ANTHROPIC_API_KEY"] = std::nullopt;
  return env;
}

std::vector<std::string> pi_argv(const std::vector<std::string>& args) {
  std::vector<std::string> argv{pi_binary().string(), "--provider", "mock", "--model", "mock-model"};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

std::string describe_run(const testing::ProcessResult& run) {
  return "exit " + std::to_string(run.exit_code) + (run.timed_out ? " (timed out)" : "") + "\n--- stdout\n" +
         run.out + "\n--- stderr\n" + run.err;
}

}  // namespace agentworks::e2e
