#include "ui/page_actions.hpp"

#include <chrono>

#include <nlohmann/json.hpp>

#include "agentworks/bridge_client.hpp"
#include "agentworks/config.hpp"
#include "agentworks/error.hpp"
#include "agentworks/server_client.hpp"
#include "session.hpp"

namespace agentworks::cli::ui {
using nlohmann::json;
namespace {

std::string string_field(const json& request, const char* name, std::size_t max) {
  const auto it = request.find(name);
  if (it == request.end() || !it->is_string() || it->get<std::string>().empty() ||
      it->get<std::string>().size() > max) {
    throw Error(ErrorCode::bad_request, std::string("field '") + name + "' must be a non-empty string");
  }
  return it->get<std::string>();
}

}  // namespace

namespace {

// R-K2: every conversation of the account's Crews with their own agents, as `crews show` lists them (no bodies).
json crew_conversation_rows(const json& crews) {
  json rows = json::array();
  for (const auto& crew : crews.value("crews", json::array())) {
    for (const auto& conv : crew.value("conversations", json::array())) {
      json row = conv;
      row["crew_name"] = crew.value("crew_name", "");
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace

std::string PageActions::calls() {
  const auto now = std::chrono::steady_clock::now();
  if (!calls_json_.empty() && now - calls_at_ < kCallsPeriod) return calls_json_;
  json calls;
  try {
    Context ctx;
    ctx.config_path = config_path_;
    ServerClient client = client_for(require_login(ctx));
    const json page = client.get("/v1/calls?limit=10");
    calls = {{"calls", page.value("calls", json::array())}, {"conversations", crew_conversation_rows(client.get("/v1/crews"))}};
  } catch (const std::exception& e) {
    calls = {{"calls", json::array()}, {"conversations", json::array()}, {"problem", e.what()}};
  }
  calls_json_ = calls.dump();
  calls_at_ = now;
  return calls_json_;
}

void PageActions::overlay_server_counts(json& attachments) {
  bool any_down = false;
  for (const auto& a : attachments) any_down = any_down || a.value("stream", "") != "connected";
  if (!any_down) return;
  const auto now = std::chrono::steady_clock::now();
  if (counts_at_ == std::chrono::steady_clock::time_point{} || now - counts_at_ >= kCountsPeriod) {
    json counts = json::object();
    try {
      const json counted = bridge_client::call({{"op", "status"}, {"server_counts", true}}, std::chrono::seconds(5));
      for (const auto& a : counted.value("attachments", json::array())) {
        if (a.value("pending_source", "bridge") == "bridge") continue;
        json c = {{"pending", a.value("pending", json())}, {"pending_source", a.value("pending_source", "")}};
        if (a.contains("pending_more")) c["pending_more"] = a["pending_more"];
        counts[a.value("attachment_id", "")] = c;
      }
    } catch (const std::exception&) {
      // Not counted this time: the rows keep the bridge's own numbers until the next try.
    }
    server_counts_json_ = counts.dump();
    counts_at_ = now;
  }
  const json counts = json::parse(server_counts_json_);
  for (auto& a : attachments) {
    if (a.value("stream", "") == "connected") continue;
    const auto it = counts.find(a.value("attachment_id", ""));
    if (it == counts.end()) continue;
    for (const auto& [k, v] : it->items()) a[k] = v;
  }
}

std::string PageActions::state() {
  json state;
  try {
    json status = bridge_client::call({{"op", "status"}}, std::chrono::seconds(2));
    json activity = bridge_client::call({{"op", "activity"}, {"limit", 30}}, std::chrono::seconds(2));
    state["bridge"] = {{"running", true}, {"pid", status.value("pid", 0)}, {"version", status.value("version", "")}};
    state["attachments"] = status.value("attachments", json::array());
    overlay_server_counts(state["attachments"]);
    state["outbox_queued"] = status.value("outbox_queued", 0);
    state["deliveries"] = activity.value("deliveries", json::array());
    state["outbox"] = activity.value("outbox", json::array());
  } catch (const std::exception& e) {
    state = {{"bridge", {{"running", false}, {"problem", e.what()}}},
             {"attachments", json::array()},
             {"outbox_queued", nullptr},
             {"deliveries", json::array()},
             {"outbox", json::array()}};
  }
  state["calls"] = json::parse(calls());
  return state.dump();
}

json PageActions::detach(const json& request) const {
  // A detach deletes the server attachment and revokes the child connection: give the server time to answer.
  return bridge_client::call({{"op", "detach"},
                              {"provider", string_field(request, "provider", 32)},
                              {"session_id", string_field(request, "session_id", 200)}},
                             std::chrono::seconds(20));
}

json PageActions::cleanup() const { return bridge_client::call({{"op", "cleanup"}}, std::chrono::seconds(10)); }

json PageActions::reveal(const json& request) const {
  const std::string message_id = string_field(request, "message_id", 200);
  const json found = bridge_client::call({{"op", "activity"}, {"message_id", message_id}}, std::chrono::seconds(5));
  const json& entry = found.at("message");
  if (entry.contains("message") && entry.at("message").is_object()) {
    return {{"source", "bridge"}, {"message", entry.at("message")}};
  }
  if (!entry.contains("agent_name") || !entry.at("agent_name").is_string()) {
    throw Error(ErrorCode::not_found, "message " + message_id + " belongs to no attachment of this bridge any more");
  }
  // Offered: the bridge cleared its copy. The mailbox holds it at its sequence number; the person's login reads
  // exactly that one message (reads are non-destructive).
  Context ctx;
  ctx.config_path = config_path_;
  const Config login = require_login(ctx);
  const auto seq = entry.value("seq", std::int64_t{0});
  const std::string path = "/v1/messages?agent_name=" + entry.at("agent_name").get<std::string>() +
                           "&after=m" + std::to_string(seq > 0 ? seq - 1 : 0) + "&limit=1";
  const json page = client_for(login).get(path);
  for (const auto& m : page.value("messages", json::array())) {
    if (m.value("message_id", "") == message_id) return {{"source", "server"}, {"message", m}};
  }
  throw Error(ErrorCode::not_found, "the server no longer holds message " + message_id);
}

}  // namespace agentworks::cli::ui
