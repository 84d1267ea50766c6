// agentworks status: which server, whether it answers (quickly: 3 s connect timeout), who this login is,
// the embedded server's pid when it is ours, and whether the bridge runs. An unreachable server is an error
// (exit 6). `--agents` lists the bridge's attachments instead (the bridge `status` op; exit 6 when it is not
// running), with how each agent talks as the login's server says (R-X1, R-X3).
#include <algorithm>
#include <cctype>
#include <iostream>
#include <map>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>

#include "agentworks/bridge_client.hpp"
#include "agentworks/config.hpp"
#include "agentworks/error.hpp"
#include "agentworks/local_protocol.hpp"
#include "agentworks/server_client.hpp"
#include "command.hpp"
#include "embedded/process.hpp"
#include "embedded/server_record.hpp"
#include "output.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

// Whether the bridge runs; a socket that fails the ownership checks is reported (with its fix), not hidden.
json bridge_state() {
  try {
    const auto ping = bridge_client::ping(std::chrono::seconds(2));
    return {{"running", ping.has_value()}, {"pid", ping ? json(ping->value("pid", 0)) : json(nullptr)}};
  } catch (const Error& e) {
    return {{"running", false}, {"pid", nullptr}, {"problem", e.what()}};
  }
}

class Status final : public Command {
 public:
  void define(Options& options) override {
    options.flag("--agents", agents_, "List the attached chats of the local bridge instead");
  }

  json run(const Context& ctx) override {
    if (agents_) return agents(ctx);
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
    ServerClientOptions options;
    if (logged_in) options.ca_file = config->ca_file;
    ServerClient client(url, logged_in ? config->token : std::string(), options);
    json health;
    try {
      health = client.get("/v1/health");  // unreachable -> exit 6
    } catch (const Error& e) {
      if (e.code() != ErrorCode::unreachable) throw;
      // The generic error says to try `agentworks status`, which is this command: say what brings the server back.
      throw Error(ErrorCode::unreachable,
                  "the agentworks server at " + url + " does not answer; start the embedded server with "
                  "`agentworks up` (after `agentworks down` it stays stopped), or log in to a running server with "
                  "`agentworks login --server URL --token-stdin`");
    }

    Config shown = logged_in ? *config : Config{};
    shown.server_url = url;
    if (logged_in) apply_whoami(shown, client.get("/v1/whoami"));
    json result = public_login_json(shown);
    result["reachable"] = true;
    result["version"] = health.value("version", std::string());
    result["logged_in"] = logged_in;
    bool ours = embedded_alive && record->url == url;
    result["embedded_pid"] = ours ? json(record->pid) : json(nullptr);
    result["bridge"] = bridge_state();
    return result;
  }

  void print(const json& r) const override {
    if (r.contains("attachments")) {
      print_agents(r);
      return;
    }
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
    const json& bridge = r["bridge"];
    if (bridge.value("running", false)) {
      std::cout << "bridge:     running (pid " << bridge["pid"].get<long>() << ")\n";
    } else if (bridge.contains("problem")) {
      std::cout << "bridge:     " << text_or(bridge, "problem") << "\n";
    } else {
      std::cout << "bridge:     not running (start it with `agentworks daemon start`)\n";
    }
  }

 private:
  // Each attachment with the fields of the contract (docs/protocol.md, "CLI machine output").
  // R-X1, R-X3: how each agent talks, as the person's server says (one request; empty when it cannot be asked:
  // the rows then say null, never a guess). Keyed by folded name; `server` is the login's server URL.
  static std::map<std::string, json> talk_settings(const Context& ctx, std::string& server) {
    std::map<std::string, json> out;
    const auto config = load_config(ctx.config_path);
    if (!config || !config->logged_in()) return out;
    try {
      const json list = client_for(*config).get("/v1/agents");
      for (const auto& a : list.value("agents", json::array())) out[fold(a.value("agent_name", ""))] = a;
      server = config->server_url;
    } catch (const Error&) {
    }
    return out;
  }
  static std::string fold(std::string name) {
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return name;
  }

  static json agents(const Context& ctx) {
    // server_counts: a chat whose stream is down is counted on the server, never shown as a false 0 (R-H8).
    const json status = bridge_client::call(json{{"op", local_protocol::op::status}, {"server_counts", true}},
                                            std::chrono::seconds(10));
    std::string talk_server;
    const auto talk = talk_settings(ctx, talk_server);
    json list = json::array();
    if (status.contains("attachments") && status["attachments"].is_array()) {
      for (const auto& a : status["attachments"]) {
        json row = json::object();
        for (const char* key : {"agent_name", "provider", "session_id", "attachment_id", "state", "stream",
                                "pending", "offered_not_admitted", "delivery", "held_back", "possibly_lost"}) {
          row[key] = a.contains(key) ? a[key] : json(nullptr);
        }
        // Only when there is something to read (R-B9, R-B6).
        for (const char* key : {"pending_source", "pending_more", "held_back_read", "possibly_lost_ids",
                                "possibly_lost_read", "lost_to", "lost_at", "turn_note", "turn_note_at"}) {
          if (a.contains(key)) row[key] = a[key];
        }
        const auto known = talk.find(fold(a.value("agent_name", "")));
        const bool same_server = a.value("server_url", "") == talk_server;
        const bool told = same_server && known != talk.end();
        row["communication"] = told ? json(known->second.value("communication", "")) : json();
        row["nudge"] = told ? json(known->second.value("nudge", "")) : json();
        list.push_back(std::move(row));
      }
    }
    return json{{"bridge_pid", status.value("pid", 0)}, {"attachments", list}};
  }

  // "3", "100+ (on the server)", "unknown while offline": never a 0 the bridge cannot know (R-H8).
  static std::string pending_cell(const json& a) {
    const std::string source = a.value("pending_source", "bridge");
    if (source == "unknown" || !a.contains("pending") || !a["pending"].is_number_integer()) {
      return a.value("state", "") == "offline" ? "unknown while offline" : "unknown (server unreachable)";
    }
    std::string cell = std::to_string(a["pending"].get<long long>());
    if (a.value("pending_more", false)) cell += "+";
    if (source == "server") cell += " (on the server)";
    return cell;
  }

  // "explicit", "direct", with ", no nudge" when silent turns are not asked (R-X3); "?" when the server was not asked.
  static std::string talks_cell(const json& a) {
    if (!a.contains("communication") || !a["communication"].is_string()) return "?";
    return a["communication"].get<std::string>() + (a.value("nudge", "on") == "off" ? ", no nudge" : "");
  }

  static std::string route_cell(const json& a) {
    if (!a.contains("delivery") || !a["delivery"].is_object()) return "-";
    const auto& d = a["delivery"];
    std::string cell = d.value("route", "?");
    if (!d.value("native", false) && !d.value("reason", "").empty()) cell += " (" + d.value("reason", "") + ")";
    return cell;
  }

  static void print_agents(const json& r) {
    if (r["attachments"].empty()) {
      std::cout << "no attached chats (bridge pid " << r.value("bridge_pid", 0) << ")\n";
      return;
    }
    // A table with headers (R-H8); the route, the widest, comes last.
    std::vector<std::vector<std::string>> rows = {
        {"AGENT", "CHAT", "ATTACHMENT", "STATE/STREAM", "PENDING", "NOT ACKED", "TALKS", "ROUTE"}};
    for (const auto& a : r["attachments"]) {
      rows.push_back({text_or(a, "agent_name"), text_or(a, "provider") + ":" + text_or(a, "session_id"),
                      text_or(a, "attachment_id"), text_or(a, "state") + "/" + text_or(a, "stream"), pending_cell(a),
                      std::to_string(a.value("offered_not_admitted", 0)), talks_cell(a), route_cell(a)});
    }
    std::vector<std::size_t> width(rows[0].size(), 0);
    for (const auto& row : rows) {
      for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    }
    const auto print_row = [&width](const std::vector<std::string>& row) {
      std::string line;
      for (std::size_t c = 0; c < row.size(); ++c) {
        line += row[c];
        if (c + 1 < row.size()) line += std::string(width[c] - row[c].size() + 2, ' ');
      }
      std::cout << line << "\n";
    };
    print_row(rows[0]);
    std::size_t index = 1;
    for (const auto& a : r["attachments"]) {
      print_row(rows[index++]);
      const auto count = [&a](const char* key) {
        return a.contains(key) && a[key].is_number_integer() ? a[key].get<long long>() : 0LL;
      };
      if (a.contains("lost_to")) {
        std::cout << "  lost the name to " << text_or(a, "lost_to") << " at " << format_time(a["lost_at"]) << "\n";
      }
      if (a.contains("turn_note")) {
        std::cout << "  " << text_or(a, "turn_note") << " (" << format_time(a["turn_note_at"]) << ")\n";
      }
      if (const auto held = count("held_back"); held > 0) {
        std::cout << "  held back on the server (local cache full): " << held << "; they follow as waiting ones "
                  << "are delivered. Read them now: " << text_or(a, "held_back_read") << "\n";
      }
      if (const auto lost = count("possibly_lost"); lost > 0) {
        std::cout << "  possibly not arrived (offered while the bridge stopped or the hook went away): " << lost;
        if (a.contains("possibly_lost_ids") && a["possibly_lost_ids"].is_array()) {
          std::string ids;
          for (const auto& id : a["possibly_lost_ids"]) ids += (ids.empty() ? "" : ", ") + id.get<std::string>();
          std::cout << " (" << ids << (static_cast<long long>(a["possibly_lost_ids"].size()) < lost ? ", ..." : "")
                    << ")";
        }
        std::cout << ". Read them: " << text_or(a, "possibly_lost_read")
                  << "; acknowledging them or `/agentworks cleanup` clears this\n";
      }
    }
  }

  bool agents_ = false;
};

}  // namespace

std::unique_ptr<Command> make_status() { return std::make_unique<Status>(); }

}  // namespace agentworks::cli
