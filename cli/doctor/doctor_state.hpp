// What several doctor checks share, found once and only when a check asks: the saved login, the server's answer
// to GET /v1/health (with its Date header), GET /v1/whoami, and the bridge's `status`. Nothing here throws for
// what it finds; each fact records why it is missing instead.
#pragma once

#include <ctime>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "agentworks/config.hpp"
#include "agentworks/providers.hpp"

namespace agentworks::cli::doctor {

struct Inputs {
  std::filesystem::path config_path;
  std::filesystem::path project;     // --project, else the current directory (absolute)
  std::optional<Provider> provider;  // --provider
};

// One answer of the server, or why there is none.
struct ServerAnswer {
  bool answered = false;     // a HTTP answer came (any status)
  long status = 0;
  nlohmann::json body;       // null when the body is not JSON
  std::optional<std::time_t> date;  // the Date header, when present and well formed
  std::time_t received_at = 0;      // local time when the answer arrived
  std::optional<std::time_t> certificate_expires;  // https: when the server's certificate stops being valid
  std::string error;                // why there is no answer (transport failure)
  std::string error_code;           // the error's code name (unreachable, untrusted_certificate, usage, …)
};

// The bridge's `status` answer, or why there is none.
struct BridgeAnswer {
  bool running = false;
  nlohmann::json status;  // the `status` op's answer when running
  std::string problem;    // a refused socket directory or listener (forbidden), or another failure
};

class State {
 public:
  explicit State(Inputs inputs) : inputs_(std::move(inputs)) {}

  const Inputs& inputs() const { return inputs_; }
  // The saved login; nullopt when there is none or it cannot be read (login_problem() says which).
  const std::optional<Config>& login();
  const std::string& login_problem();
  const ServerAnswer& health();
  const ServerAnswer& whoami();
  const BridgeAnswer& bridge();

 private:
  void load_login();
  Inputs inputs_;
  bool login_loaded_ = false;
  std::optional<Config> login_;
  std::string login_problem_;
  std::optional<ServerAnswer> health_;
  std::optional<ServerAnswer> whoami_;
  std::optional<BridgeAnswer> bridge_;
};

}  // namespace agentworks::cli::doctor
