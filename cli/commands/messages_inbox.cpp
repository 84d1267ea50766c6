// agentworks messages inbox --inbox ID: one conversation inbox's state (open or expired).
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/server_client.hpp"
#include "command.hpp"
#include "output.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class MessagesInbox final : public Command {
 public:
  void define(Options& options) override {
    options.option("--inbox", inbox_, "Conversation inbox id (inb_…)").required();
  }

  json run(const Context& ctx) override {
    Config config = require_login(ctx);
    return client_for(config).get("/v1/inboxes/" + url_encode(inbox_));
  }

  void print(const json& inbox) const override {
    std::cout << text_or(inbox, "inbox_id") << ": " << text_or(inbox, "state") << " (conversation "
              << text_or(inbox, "conversation_id") << ")\n";
  }

 private:
  std::string inbox_;
};

}  // namespace

std::unique_ptr<Command> make_messages_inbox() { return std::make_unique<MessagesInbox>(); }

}  // namespace agentworks::cli
