// agentworks crews register NAME --dir PATH [--allow-claude-tools LIST] [--allow-codex-sandbox MODE]: registers a
// project folder (on the server's computer) as a Crew of this account; the server reads
// PATH/.agentworks/functions.json and refuses agent functions that ask for more than the allowance.
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "agentworks/error.hpp"
#include "checks.hpp"
#include "command.hpp"
#include "functions/describe.hpp"
#include "functions/routes.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

// The server compares folders as strings (one Crew may not hold another), so it gets one spelling: absolute,
// without "." and ".." components or a trailing '/'. Symlinks are left for the server to judge.
std::string normalised_dir(const std::string& dir) {
  if (dir.empty()) throw Error(ErrorCode::usage, "--dir is empty");
  std::string path = std::filesystem::absolute(dir).lexically_normal().string();
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

class CrewsRegister final : public Command {
 public:
  void define(Options& options) override {
    options.option("name", name_, "Crew name (1-64 letters, digits, '.', '_', '-')").required();
    options.option("--dir", dir_, "The project folder (on the server's computer) with .agentworks/functions.json")
        .required();
    options.option("--allow-claude-tools", claude_tools_,
                   "Tools its Claude functions may use, comma-separated ('*' every tool; default Read,Grep,Glob,Write,Edit)");
    options.option("--allow-codex-sandbox", codex_sandbox_, "The widest sandbox of its Codex functions (default workspace-write)")
        .one_of({"read-only", "workspace-write", "danger-full-access"});
  }

  json run(const Context& ctx) override {
    check_agent_name(name_);
    json body = {{"crew_name", name_}, {"dir", normalised_dir(dir_)}};
    if (claude_tools_ || codex_sandbox_)
      body["allow"] = functions::allow_body(claude_tools_, codex_sandbox_, "--allow-claude-tools");
    Config config = require_login(ctx);
    return client_for(config).post("/v1/crews", body);
  }

  void print(const json& crew) const override {
    std::cout << "registered " << functions::describe_crew(crew);
    std::cout << "  call a function with: agentworks functions call --crew " << name_
              << " --function NAME --args '{...}'\n";
    if (crew.contains("agent") && crew["agent"].is_object())
      std::cout << "  talk to its agent with: agentworks crews ask " << name_ << " --message TEXT\n";
  }

 private:
  std::string name_;
  std::string dir_;
  std::optional<std::string> claude_tools_;
  std::optional<std::string> codex_sandbox_;
};

}  // namespace

std::unique_ptr<Command> make_crews_register() { return std::make_unique<CrewsRegister>(); }

}  // namespace agentworks::cli
