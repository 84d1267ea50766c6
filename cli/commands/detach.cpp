// agentworks detach --provider P --session ID: the person's terminal way to end one chat's attachment (R-H8).
// It names the exact session (never a name or "the latest"), asks the person to confirm on the terminal, then
// calls the bridge's `detach` op. It can only detach: nothing here attaches.
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/bridge_client.hpp"
#include "agentworks/error.hpp"
#include "agentworks/local_protocol.hpp"
#include "command.hpp"
#include "install/confirm.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class Detach final : public Command {
 public:
  void define(Options& options) override {
    options.option("--provider", provider_, "The chat's provider: claude, codex, cursor or pi").required();
    options.option("--session", session_, "The chat's session id (see `agentworks status --agents`)").required();
    options.flag("--yes,-y", yes_, "Confirm without the terminal question (you, the person, are confirming)");
  }

  json run(const Context& /*ctx*/) override {
    // Ask the bridge first: a stopped bridge or an unknown session fails before the person is asked anything.
    const json found =
        bridge_client::call({{"op", local_protocol::op::lookup}, {"provider", provider_}, {"session_id", session_}});
    if (!found.value("attached", false)) {
      throw Error(ErrorCode::not_found, "no attachment for " + provider_ + " session " + session_ +
                                            "; see `agentworks status --agents` for the attached chats");
    }
    const std::string agent = found.value("agent_name", "");
    install::confirm_on_terminal("Detach the " + provider_ + " chat " + session_ +
                                     (agent.empty() ? "" : " (agent " + agent + ")") +
                                     "? It stops receiving messages.",
                                 yes_);
    json result =
        bridge_client::call({{"op", local_protocol::op::detach}, {"provider", provider_}, {"session_id", session_}},
                            std::chrono::seconds(30));
    result.erase("id");
    result.erase("ok");
    result["provider"] = provider_;
    result["session_id"] = session_;
    return result;
  }

  void print(const json& r) const override {
    std::cout << "Detached the " << r.value("provider", "") << " chat " << r.value("session_id", "");
    if (r.contains("agent_name") && r["agent_name"].is_string()) std::cout << " (agent " << r["agent_name"].get<std::string>() << ")";
    std::cout << ".\n";
  }

 private:
  std::string provider_;
  std::string session_;
  bool yes_ = false;
};

}  // namespace

std::unique_ptr<Command> make_detach() { return std::make_unique<Detach>(); }

}  // namespace agentworks::cli
