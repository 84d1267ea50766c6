// agentworks crews allow NAME [--claude-tools LIST] [--codex-sandbox MODE]: sets what the Crew's agent functions and
// its own agent (R-K1) may use. The server refuses (invalid_declaration, nothing changes) an allowance narrower than
// the declarations in force.
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "agentworks/error.hpp"
#include "command.hpp"
#include "functions/describe.hpp"
#include "functions/routes.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class CrewsAllow final : public Command {
 public:
  void define(Options& options) override {
    options.option("name", name_, "Crew name (or crw_ id)").required();
    options.option("--claude-tools", claude_tools_,
                   "Tools its Claude functions and agent may use, comma-separated: Read,Grep,Bash ('Bash' also allows "
                   "'Bash(git diff:*)'; '*' every tool; '' none)");
    options.option("--codex-sandbox", codex_sandbox_, "The widest sandbox of its Codex functions and agent")
        .one_of({"read-only", "workspace-write", "danger-full-access"});
  }

  json run(const Context& ctx) override {
    if (!claude_tools_ && !codex_sandbox_)
      throw Error(ErrorCode::usage, "give --claude-tools LIST, --codex-sandbox MODE or both");
    const json body = functions::allow_body(claude_tools_, codex_sandbox_, "--claude-tools");
    Config config = require_login(ctx);
    return client_for(config).post(functions::crew_path(name_) + "/allow", body);
  }

  void print(const json& crew) const override { std::cout << "allowed " << functions::describe_crew(crew); }

 private:
  std::string name_;
  std::optional<std::string> claude_tools_;
  std::optional<std::string> codex_sandbox_;
};

}  // namespace

std::unique_ptr<Command> make_crews_allow() { return std::make_unique<CrewsAllow>(); }

}  // namespace agentworks::cli
