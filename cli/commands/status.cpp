// agentworks status: which server, whether it answers (quickly: 3 s connect timeout), who this login is,
// and the embedded server's pid when it is ours. An unreachable server is an error (exit 6).
#include <CLI/CLI.hpp>

#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/config.hpp"
#include "agentworks/error.hpp"
#include "agentworks/server_client.hpp"
#include "command.hpp"
#include "embedded/process.hpp"
#include "embedded/server_record.hpp"
#include "output.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

class Status final : public Command {
 public:
  void define(CLI::App& /*app*/) override {}

  json run(const Context& ctx) override {
    auto config = load_config(ctx.config_path);
    auto record = read_server_record();
    bool embedded_alive = record && process_alive(record->pid) && is_agentworks_server(record->pid);
    bool logged_in = config && config->logged_in();
    if (!logged_in && !embedded_alive) {
      throw Error(ErrorCode::unauthenticated,
                  "not logged in and no embedded server is running; run `agentworks up`, or "
                  "`agentworks login --server URL --token-stdin`");
    }
    const std::string url = logged_in ? config->server_url : record->url;
    ServerClient client(url, logged_in ? config->token : std::string());
    json health = client.get("/v1/health");  // unreachable -> exit 6

    Config shown = logged_in ? *config : Config{};
    shown.server_url = url;
    if (logged_in) apply_whoami(shown, client.get("/v1/whoami"));
    json result = public_login_json(shown);
    result["reachable"] = true;
    result["version"] = health.value("version", std::string());
    result["logged_in"] = logged_in;
    bool ours = embedded_alive && record->url == url;
    result["embedded_pid"] = ours ? json(record->pid) : json(nullptr);
    return result;
  }

  void print(const json& r) const override {
    std::cout << "server:     " << text_or(r, "server_url") << " (reachable, version " << text_or(r, "version") << ")\n";
    if (!r["embedded_pid"].is_null()) std::cout << "embedded:   pid " << r["embedded_pid"].get<long>() << "\n";
    if (!r.value("logged_in", false)) {
      std::cout << "login:      none (run `agentworks up` or `agentworks login`)\n";
      return;
    }
    std::cout << "connection: " << text_or(r, "connection_id") << " (" << text_or(r, "kind") << ")\n"
              << "account:    " << text_or(r, "account_name") << " (" << text_or(r, "account_id") << ")\n";
    std::string agent = text_or(r, "agent_name", "");
    if (!agent.empty()) std::cout << "agent:      " << agent << "\n";
  }
};

}  // namespace

std::unique_ptr<Command> make_status() { return std::make_unique<Status>(); }

}  // namespace agentworks::cli
