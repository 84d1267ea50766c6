#include "doctor/doctor_state.hpp"

#include "agentworks/bridge_client.hpp"
#include "agentworks/error.hpp"
#include "agentworks/local_protocol.hpp"
#include "doctor/http_probe.hpp"

namespace agentworks::cli::doctor {
using nlohmann::json;

void State::load_login() {
  if (login_loaded_) return;
  login_loaded_ = true;
  try {
    login_ = load_config(inputs_.config_path);
    if (!login_) {
      login_problem_ = "no saved login at " + inputs_.config_path.string();
    } else if (!login_->logged_in()) {
      login_problem_ = "the login at " + inputs_.config_path.string() + " has no server or token";
      login_.reset();
    }
  } catch (const Error& e) {
    login_problem_ = e.what();
  }
}

const std::optional<Config>& State::login() {
  load_login();
  return login_;
}

const std::string& State::login_problem() {
  load_login();
  return login_problem_;
}

const ServerAnswer& State::health() {
  if (!health_) {
    const auto& config = login();
    health_ = config ? probe_get(config->server_url, "/v1/health", "", config->ca_file) : ServerAnswer{};
    if (!config) health_->error = login_problem();
  }
  return *health_;
}

const ServerAnswer& State::whoami() {
  if (!whoami_) {
    const auto& config = login();
    whoami_ = config ? probe_get(config->server_url, "/v1/whoami", config->token, config->ca_file) : ServerAnswer{};
    if (!config) whoami_->error = login_problem();
  }
  return *whoami_;
}

const BridgeAnswer& State::bridge() {
  if (!bridge_) {
    BridgeAnswer answer;
    try {
      answer.status = bridge_client::call(json{{"op", local_protocol::op::status}}, std::chrono::seconds(5));
      answer.running = true;
    } catch (const bridge_client::NoAnswer& e) {
      answer.problem = std::string("a bridge listens but did not answer `status` in 5 s: ") + e.what();
    } catch (const Error& e) {
      // unreachable: nothing listens (not a problem of the socket); anything else is.
      if (e.code() != ErrorCode::unreachable) answer.problem = e.what();
    }
    bridge_ = std::move(answer);
  }
  return *bridge_;
}

}  // namespace agentworks::cli::doctor
