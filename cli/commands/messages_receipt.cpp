// agentworks messages receipt --message-id ID [--set admitted|processed [--via HOW]]
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/server_client.hpp"
#include "command.hpp"
#include "output.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class MessagesReceipt final : public Command {
 public:
  void define(Options& options) override {
    options.option("--message-id", message_id_, "The message (msg_…)").required();
    options.option("--set", set_, "As the receiver, advance the state: admitted or processed");
    options.option("--via", via_, "With --set: how admission was proven (e.g. agent)");
  }

  json run(const Context& ctx) override {
    if (via_ && !set_) throw Error(ErrorCode::usage, "--via needs --set admitted|processed");
    if (set_ && *set_ != "admitted" && *set_ != "processed") {
      throw Error(ErrorCode::bad_request, "--set must be admitted or processed, not \"" + *set_ + "\"");
    }
    Config config = require_login(ctx);
    ServerClient client = client_for(config);
    const std::string path = "/v1/messages/" + url_encode(message_id_) + "/receipt";
    if (!set_) return client.get(path);
    json body = {{"delivery", *set_}};
    if (via_) body["via"] = *via_;
    return client.post(path, body);
  }

  void print(const json& result) const override {
    const json delivery = result.value("delivery", json::object());
    std::cout << text_or(result, "message_id") << ": " << text_or(delivery, "state");
    if (delivery.contains("admitted_at") && !delivery["admitted_at"].is_null()) {
      std::cout << ", admitted " << format_time(delivery["admitted_at"]);
    }
    if (delivery.contains("processed_at") && !delivery["processed_at"].is_null()) {
      std::cout << ", processed " << format_time(delivery["processed_at"]);
    }
    std::string via = text_or(delivery, "via", "");
    if (!via.empty()) std::cout << " (via " << via << ")";
    // R-X2: whether the recipient answered, as a sender reads it.
    if (const std::string reply = text_or(delivery, "reply_state", ""); !reply.empty()) {
      std::cout << "; " << (reply == "no_reply" ? "declined to answer" : reply == "replied" ? "answered" : "no answer yet");
    }
    std::cout << "\n";
  }

 private:
  std::string message_id_;
  std::optional<std::string> set_;
  std::optional<std::string> via_;
};

}  // namespace

std::unique_ptr<Command> make_messages_receipt() { return std::make_unique<MessagesReceipt>(); }

}  // namespace agentworks::cli
