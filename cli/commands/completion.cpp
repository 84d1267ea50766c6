// agentworks completion bash|zsh: the shell completion script, generated from the command table.
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "command.hpp"
#include "reference/completion_script.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class Completion final : public Command {
 public:
  void define(Options& options) override {
    options.option("shell", shell_, "bash or zsh").required();
    options.footer(
        "bash: agentworks completion bash > ~/.local/share/bash-completion/completions/agentworks\n"
        "zsh:  agentworks completion zsh > ~/.zfunc/_agentworks (with ~/.zfunc on $fpath)");
  }

  json run(const Context& /*ctx*/) override {
    auto script = render_completion_script(describe_cli(), shell_);
    if (!script)
      throw Error(ErrorCode::bad_request, "no completion for shell '" + shell_ + "'; give bash or zsh");
    return json{{"shell", shell_}, {"script", *script}};
  }

  void print(const json& r) const override { std::cout << r.at("script").get<std::string>(); }

 private:
  std::string shell_;
};

}  // namespace

std::unique_ptr<Command> make_completion() { return std::make_unique<Completion>(); }

}  // namespace agentworks::cli
