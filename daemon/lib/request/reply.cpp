#include "request/reply.hpp"

#include <nlohmann/json.hpp>

namespace agentworks::bridge {

using nlohmann::json;

std::string error_line(const json& id, ErrorCode code, const std::string& message) {
  json out = {{"id", id}, {"error", {{"code", std::string(code_name(code))}, {"message", message}}}};
  return out.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

Reply::Reply(std::shared_ptr<const json> id, Sink sink) : state_(std::make_shared<State>()) {
  state_->id = std::move(id);
  if (sink) {
    state_->sink = [sink = std::move(sink)](std::string line, const Written& written) {
      sink(std::move(line));
      if (written) written(true);
    };
  }
}

Reply::Reply(std::shared_ptr<const json> id, Transport transport, Connected connected)
    : state_(std::make_shared<State>()) {
  state_->id = std::move(id);
  state_->sink = std::move(transport);
  state_->connected = std::move(connected);
}

void Reply::ok(const json& fields) const { ok(fields, nullptr); }

void Reply::ok(const json& fields, Written written) const {
  if (state_->sent) {
    if (written) written(false);
    return;
  }
  state_->sent = true;
  if (state_->observer) state_->observer(&fields);
  json out = {{"id", *state_->id}, {"ok", true}};
  if (fields.is_object()) {
    for (const auto& [k, v] : fields.items()) {
      if (k != "id" && k != "ok") out[k] = v;
    }
  }
  if (state_->sink) {
    state_->sink(out.dump(-1, ' ', false, json::error_handler_t::replace) + "\n", std::move(written));
  } else if (written) {
    written(false);
  }
}

void Reply::error(ErrorCode code, const std::string& message) const {
  if (state_->sent) return;
  state_->sent = true;
  if (state_->observer) state_->observer(nullptr);
  if (state_->sink) state_->sink(error_line(*state_->id, code, message), nullptr);
}

Reply Reply::then(std::function<void(const json& fields)> on_ok) const {
  const Reply outer = *this;
  return Reply(state_->id, Sink([outer, on_ok = std::move(on_ok)](std::string line) {
    json answer = json::parse(line, nullptr, false);
    if (!answer.is_object()) {
      outer.error(ErrorCode::internal, "internal error: an inner op answered something that is not JSON");
      return;
    }
    if (const auto e = answer.find("error"); e != answer.end() && e->is_object()) {
      const auto code = parse_code(e->value("code", "internal")).value_or(ErrorCode::internal);
      outer.error(code, e->value("message", "failed"));
      return;
    }
    answer.erase("id");
    answer.erase("ok");
    try {
      on_ok(answer);
    } catch (const Error& err) {
      outer.error(err.code(), err.what());
    } catch (const std::exception& err) {
      outer.error(ErrorCode::internal, std::string("internal error: ") + err.what());
    }
  }));
}

}  // namespace agentworks::bridge
