// agentworks crews register NAME --dir PATH: registers a project folder (on the server's computer) as a Crew of this
// account; the server reads PATH/.agentworks/functions.json.
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "checks.hpp"
#include "command.hpp"
#include "functions/describe.hpp"
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
  }

  json run(const Context& ctx) override {
    check_agent_name(name_);
    const json body = {{"crew_name", name_}, {"dir", normalised_dir(dir_)}};
    Config config = require_login(ctx);
    return client_for(config).post("/v1/crews", body);
  }

  void print(const json& crew) const override {
    std::cout << "registered " << functions::describe_crew(crew);
    std::cout << "  call a function with: agentworks functions call --crew " << name_
              << " --function NAME --args '{...}'\n";
  }

 private:
  std::string name_;
  std::string dir_;
};

}  // namespace

std::unique_ptr<Command> make_crews_register() { return std::make_unique<CrewsRegister>(); }

}  // namespace agentworks::cli
