// agentworks bridge message read --provider P [--after CURSOR] [--limit N]
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/local_protocol.hpp"
#include "commands/bridge_message_base.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class BridgeMessageRead final : public BridgeMessageCommand {
 public:
  BridgeMessageRead() : BridgeMessageCommand(std::string(local_protocol::op::read)) {}
  void define(Options& options) override {
    define_provider(options);
    options.option("--after", after_, "Cursor from a previous read's next_cursor (0 = from the start)");
    options.option("--limit", limit_, "At most this many messages (1-100, default 20)");
  }
  json run(const Context& /*ctx*/) override {
    json fields = json::object();
    if (!after_.empty()) fields["after"] = after_;
    if (limit_ != 0) {
      if (limit_ < 1 || limit_ > 100) throw Error(ErrorCode::usage, "--limit must be 1-100");
      fields["limit"] = limit_;
    }
    return call(std::move(fields));
  }

 private:
  std::string after_;
  int limit_ = 0;
};

}  // namespace

std::unique_ptr<Command> make_bridge_message_read() { return std::make_unique<BridgeMessageRead>(); }

}  // namespace agentworks::cli
