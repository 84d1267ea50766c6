// agentworks crews register NAME --dir PATH [--serve-here] [--allow-claude-tools LIST] [--allow-codex-sandbox MODE]:
// registers a project folder as a Crew of this account. Without --serve-here the folder is on the server's computer
// and the server reads PATH/.agentworks/functions.json; with it the folder is on this computer, which serves the
// Crew (R-R1): its files are checked here and sent, and this computer's runner runs the calls. Either way the
// server refuses agent functions that ask for more than the allowance.
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "agentworks/error.hpp"
#include "checks.hpp"
#include "command.hpp"
#include "functions/describe.hpp"
#include "functions/routes.hpp"
#include "serving/served_crews.hpp"
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
    options.flag("--serve-here", serve_here_,
                 "The folder is on this computer, which serves the Crew: its files are sent, never read by the server");
  }

  json run(const Context& ctx) override {
    check_agent_name(name_);
    json body = {{"crew_name", name_}, {"dir", normalised_dir(dir_)}};
    if (claude_tools_ || codex_sandbox_)
      body["allow"] = functions::allow_body(claude_tools_, codex_sandbox_, "--allow-claude-tools");
    Config config = require_login(ctx);
    if (!serve_here_) return client_for(config).post("/v1/crews", body);
    const std::string dir = std::filesystem::canonical(body["dir"].get<std::string>()).string();
    body["dir"] = dir;
    const json sent = sent_declaration(dir, name_);
    const std::string host = this_host();
    body["serve"] = {{"host", host}, {"functions", sent["functions"]}, {"crew", sent["crew"]}};
    json crew = client_for(config).post("/v1/crews", body);
    ServedCrew served{crew.at("crew_id").get<std::string>(), name_, dir, config.server_url, config.ca_file, host,
                      crew.at("runner").at("token").get<std::string>()};
    save_served_crew(served);
    crew["runner"].erase("token");  // kept in a private file for the runner; never printed
    crew["serve_command"] = "agentworks crews serve " + name_;
    return crew;
  }

  void print(const json& crew) const override {
    std::cout << "registered " << functions::describe_crew(crew);
    std::cout << "  call a function with: agentworks functions call --crew " << name_
              << " --function NAME --args '{...}'\n";
    if (crew.contains("serve_command"))
      std::cout << "  this computer serves it: its bridge runs `" << crew["serve_command"].get<std::string>()
                << "` (start the bridge with `agentworks daemon start`, or run that command yourself)\n";
    if (crew.contains("agent") && crew["agent"].is_object())
      std::cout << "  talk to its agent with: agentworks crews ask " << name_ << " --message TEXT\n";
  }

 private:
  std::string name_;
  std::string dir_;
  std::optional<std::string> claude_tools_;
  std::optional<std::string> codex_sandbox_;
  bool serve_here_ = false;
};

}  // namespace

std::unique_ptr<Command> make_crews_register() { return std::make_unique<CrewsRegister>(); }

}  // namespace agentworks::cli
