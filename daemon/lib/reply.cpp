#include "reply.hpp"

#include <nlohmann/json.hpp>

namespace agentworks::bridge {

using nlohmann::json;

std::string error_line(const json& id, ErrorCode code, const std::string& message) {
  json out = {{"id", id}, {"error", {{"code", std::string(code_name(code))}, {"message", message}}}};
  return out.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

Reply::Reply(std::shared_ptr<const json> id, Sink sink) : state_(std::make_shared<State>()) {
  state_->id = std::move(id);
  state_->sink = std::move(sink);
}

void Reply::ok(const json& fields) const {
  if (state_->sent) return;
  state_->sent = true;
  json out = {{"id", *state_->id}, {"ok", true}};
  if (fields.is_object()) {
    for (const auto& [k, v] : fields.items()) {
      if (k != "id" && k != "ok") out[k] = v;
    }
  }
  if (state_->sink) state_->sink(out.dump(-1, ' ', false, json::error_handler_t::replace) + "\n");
}

void Reply::error(ErrorCode code, const std::string& message) const {
  if (state_->sent) return;
  state_->sent = true;
  if (state_->sink) state_->sink(error_line(*state_->id, code, message));
}

}  // namespace agentworks::bridge
