// agentworks manual: the agentworks(1) manual page in roff, generated from the command table (the package
// installs it; `agentworks manual | man -l -` reads it from a source build).
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "reference/man_page.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class Manual final : public Command {
 public:
  void define(Options& /*options*/) override {}

  json run(const Context& /*ctx*/) override {
    return json{{"format", "man"}, {"page", render_man_page(describe_cli())}};
  }

  void print(const json& r) const override { std::cout << r.at("page").get<std::string>(); }
};

}  // namespace

std::unique_ptr<Command> make_manual() { return std::make_unique<Manual>(); }

}  // namespace agentworks::cli
