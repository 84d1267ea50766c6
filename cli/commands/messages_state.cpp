// agentworks messages state --agent NAME [--after CURSOR] [--limit N]: the owner's view of an agent's conversations
// (GET /v1/agents/{name}/state): where its messages are received now, its inboxes newest first, and each one's last
// deliveries (ids, receipts, reply_state, times) and its wakeups with their states, never a message's text.
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/server_client.hpp"
#include "checks.hpp"
#include "command.hpp"
#include "output.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class MessagesState final : public Command {
 public:
  void define(Options& options) override {
    options.option("--agent", agent_, "The agent whose conversations to show (crew:NAME: a Crew's own agent)")
        .required();
    options.option("--after", after_, "The next_after of a previous page");
    options.option("--limit", limit_, "Inboxes per page (1-50, default 50; the server checks the range)");
  }

  json run(const Context& ctx) override {
    std::string path = "/v1/agents/" + agent_path_segment(agent_) + "/state?limit=" + std::to_string(limit_);
    if (!after_.empty()) path += "&after=" + url_encode(after_);
    Config config = require_login(ctx);
    return client_for(config).get(path);
  }

  void print(const json& st) const override {
    const std::string name = text_or(st, "agent_name", agent_);
    std::cout << (name.rfind("crew:", 0) == 0 ? "" : "agent:") << name << " (" << text_or(st, "communication", "explicit")
              << ")";
    const json receiving = st.value("receiving", json());
    if (receiving.is_object())
      std::cout << ", received by " << text_or(receiving, "provider") << " session " << text_or(receiving, "session_id");
    else
      std::cout << ", not attached: messages wait in its mailbox";
    std::cout << "\n";
    for (const json& inbox : st.value("inboxes", json::array())) {
      const json from = inbox.value("initiator", json::object());
      std::cout << "inbox " << text_or(inbox, "inbox_id") << " (" << text_or(inbox, "state") << ") with "
                << (from.value("agent_name", json()).is_string() ? "agent:" + text_or(from, "agent_name")
                                                                  : text_or(from, "connection_id"))
                << "\n";
      for (const json& d : inbox.value("deliveries", json::array()))
        std::cout << "  " << text_or(d, "message_id") << " " << text_or(d, "direction") << " "
                  << text_or(d, "state") << (d.value("reply_state", json()).is_string()
                                                 ? ", " + text_or(d, "reply_state") : std::string())
                  << " (" << format_time(d.value("created_at", json())) << ")\n";
    }
    const json wakeups = st.value("wakeups", json::array());
    if (!wakeups.empty() || st.value("wakeups_paused", false))
      std::cout << "wakeups" << (st.value("wakeups_paused", false) ? " (paused)" : "") << ":\n";
    for (const json& w : wakeups)
      std::cout << "  " << text_or(w, "wakeup_id") << " " << text_or(w, "state") << ", due "
                << format_time(w.value("due_at", json())) << "\n";
    if (st.value("next_after", json()).is_string())
      std::cout << "more: agentworks messages state --agent " << agent_ << " --after " << text_or(st, "next_after")
                << "\n";
  }

 private:
  std::string agent_;
  std::string after_;
  int limit_ = 50;
};

}  // namespace

std::unique_ptr<Command> make_messages_state() { return std::make_unique<MessagesState>(); }

}  // namespace agentworks::cli
