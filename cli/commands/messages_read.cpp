// agentworks messages read (--agent NAME | --inbox ID | both) [--after CURSOR] [--wait SECONDS] [--limit N]
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/server_client.hpp"
#include "agentworks/validation.hpp"
#include "checks.hpp"
#include "command.hpp"
#include "output.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

std::string name_or(const json& party, const char* fallback) {
  std::string name = text_or(party, "agent_name", "");
  return name.empty() ? fallback : name;
}

class MessagesRead final : public Command {
 public:
  void define(Options& options) override {
    options.option("--agent", agent_, "Read this agent's mailbox (or, with --inbox, read as this agent)");
    options.option("--inbox", inbox_, "Read one conversation inbox");
    options.option("--after", after_, "Cursor from a previous read's next_cursor (0 = from the start)");
    options.option("--wait", wait_, "Seconds to wait for a message when none is after the cursor (0-25)");
    options.option("--limit", limit_, "At most this many messages (1-100)");
  }

  json run(const Context& ctx) override {
    if (!agent_ && !inbox_) throw Error(ErrorCode::usage, "give --agent NAME (mailbox) or --inbox INBOX_ID");
    std::string query;
    auto add = [&query](const char* key, const std::string& value) {
      query += (query.empty() ? "?" : "&") + std::string(key) + "=" + url_encode(value);
    };
    if (inbox_) add("inbox_id", *inbox_);
    if (agent_) {
      check_agent_name(*agent_);
      add("agent_name", *agent_);
    }
    add("after", after_);
    if (limit_) {
      check_range("--limit", *limit_, 1, kMaxReadLimit);
      add("limit", std::to_string(*limit_));
    }
    check_range("--wait", wait_, 0, kMaxWaitSeconds);
    if (wait_ > 0) add("wait_seconds", std::to_string(wait_));
    Config config = require_login(ctx);
    return client_for(config).get("/v1/messages" + query, wait_);
  }

  void print(const json& page) const override {
    const json& messages = page.at("messages");
    for (const json& m : messages) {
      const json sender = m.value("sender", json::object());
      const json recipient = m.value("recipient", json::object());
      const json delivery = m.value("delivery", json::object());
      std::cout << "[" << text_or(m, "cursor") << "] " << format_time(m.value("created_at", json())) << "  "
                << name_or(sender, text_or(sender, "connection_id", "?").c_str()) << " -> "
                << name_or(recipient, "(initiator)") << "  " << text_or(m, "message_id") << "  "
                << text_or(delivery, "state", "") << "\n";
      // Body indented so it cannot be mistaken for the header lines around it.
      std::string body = text_or(m, "message", "");
      std::cout << "  ";
      for (char c : body) {
        std::cout << c;
        if (c == '\n') std::cout << "  ";
      }
      std::cout << "\n  reply address: " << text_or(m, "reply_address") << "\n\n";
    }
    if (messages.empty()) std::cout << "no messages after " << (after_.empty() ? "0" : after_) << "\n";
    std::cout << "next cursor: " << text_or(page, "next_cursor") << "\n";
  }

 private:
  std::optional<std::string> agent_;
  std::optional<std::string> inbox_;
  std::string after_ = "0";
  int wait_ = 0;
  std::optional<int> limit_;
};

}  // namespace

std::unique_ptr<Command> make_messages_read() { return std::make_unique<MessagesRead>(); }

}  // namespace agentworks::cli
