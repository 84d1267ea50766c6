// read, peers and channel_take: what the MCP child (agent_message_read, agent_message_peers, the Claude channel)
// and `agentworks bridge message read|peers` ask, as the attached agent, with its child connection (never the
// person's login, R-C2).
// read is a bounded manual mailbox read filtered through the server's release check (R-C9): only messages the
// current attachment may receive from still-authorised senders come back. Neither changes the offer journal.
#include <chrono>
#include <map>

#include <nlohmann/json.hpp>

#include "agentworks/validation.hpp"
#include "bridge.hpp"
#include "delivery/op_guard.hpp"
#include "delivery/server_call.hpp"
#include "ops/ops.hpp"
#include "request/request_fields.hpp"

namespace agentworks::bridge {

using nlohmann::json;

namespace {

constexpr std::int64_t kMaxReadLimit = 100;
constexpr std::int64_t kDefaultReadLimit = 20;

std::string child_token(Bridge& bridge, const AttachmentRow& row) {
  const auto token = bridge.token_for(row);
  if (!token) {
    throw Error(ErrorCode::fenced, "this chat's agent has no stored child connection; attach this chat again");
  }
  return *token;
}

// A mailbox cursor: "0" or "m<N>" (docs/protocol.md "Cursors").
std::string mailbox_cursor(const json& req) {
  const auto after = optional_string(req, "after", 32);
  if (!after || after->empty()) return "0";
  bool ok = *after == "0";
  if (!ok && after->size() >= 2 && (*after)[0] == 'm') {
    ok = true;
    for (std::size_t i = 1; i < after->size(); ++i) ok = ok && (*after)[i] >= '0' && (*after)[i] <= '9';
  }
  if (!ok) {
    throw Error(ErrorCode::bad_request, "field 'after' must be a mailbox cursor (\"0\" or \"m<N>\", a next_cursor)");
  }
  return *after;
}

json agent_meta(const AttachmentRow& row) {
  return {{"agent_name", row.agent_name}, {"attachment_id", row.attachment_id}, {"provider", row.provider},
          {"session_id", row.session_id}};
}

// The page minus what the release check refuses; `filtered` counts the dropped ones.
void release_filter(Bridge& bridge, const AttachmentRow& row, const std::string& token, json page,
                    const Reply& reply) {
  json ids = json::array();
  json messages = json::array();
  for (const auto& m : page["messages"]) {
    if (m.is_object() && m.contains("message_id") && m["message_id"].is_string()) messages.push_back(m);
  }
  for (const auto& m : messages) ids.push_back(m["message_id"]);
  page["messages"] = std::move(messages);
  const std::string path = "/v1/attachments/" + row.attachment_id + "/release-check";
  call_server(bridge, "POST", row.server_url, path, token, json{{"message_ids", ids}},
              [&bridge, row, page = std::move(page), reply](const ServerAnswer& a) {
                guarded(bridge, reply, [&] {
                  if (a.error != nullptr) throw *a.error;
                  if (!a.body->value("attachment_current", false)) {
                    bridge.fence(row.attachment_id, "not current at a mailbox read");
                    throw Error(ErrorCode::fenced,
                                "this chat's attachment is no longer current (another chat took the name, or it "
                                "was detached); attach this chat again");
                  }
                  std::map<std::string, bool> releasable;
                  for (const auto& r : a.body->value("messages", json::array())) {
                    if (!r.is_object() || !r.contains("message_id") || !r["message_id"].is_string()) continue;
                    releasable[r["message_id"].get<std::string>()] = r.value("releasable", false);
                  }
                  json kept = json::array();
                  std::int64_t filtered = 0;
                  for (const auto& m : page["messages"]) {
                    if (releasable[m["message_id"].get<std::string>()]) {
                      kept.push_back(m);
                    } else {
                      ++filtered;
                    }
                  }
                  // R-B6: offers that may not have arrived are read now: no longer reported.
                  std::vector<std::string> read_ids;
                  for (const auto& m : kept) read_ids.push_back(m["message_id"].get<std::string>());
                  bridge.journal().possibly_lost_read(read_ids);
                  json out = agent_meta(row);
                  out["messages"] = std::move(kept);
                  out["next_cursor"] = page.value("next_cursor", json("0"));
                  out["filtered"] = filtered;
                  reply.ok(out);
                });
              });
}

}  // namespace

void op_read(Bridge& bridge, const json& req, const Reply& reply, const AttachmentRow* session) {
  const AttachmentRow row = *session;  // resolved by dispatch() (claims_session)
  const auto after = mailbox_cursor(req);
  const auto limit = optional_int(req, "limit", kDefaultReadLimit, 1, kMaxReadLimit);
  const auto token = child_token(bridge, row);
  const std::string path =
      "/v1/messages?agent_name=" + row.agent_name + "&after=" + after + "&limit=" + std::to_string(limit);
  call_server(bridge, "GET", row.server_url, path, token, nullptr, [&bridge, row, token, reply](const ServerAnswer& a) {
    guarded(bridge, reply, [&] {
      if (a.error != nullptr) throw *a.error;
      json page = *a.body;
      if (!page.contains("messages") || !page["messages"].is_array()) {
        throw Error(ErrorCode::internal, "the server's mailbox page has no messages list");
      }
      if (page["messages"].empty()) {
        json out = agent_meta(row);
        out["messages"] = json::array();
        out["next_cursor"] = page.value("next_cursor", json("0"));
        out["filtered"] = 0;
        reply.ok(out);
        return;
      }
      release_filter(bridge, row, token, std::move(page), reply);
    });
  });
}

namespace {

constexpr std::int64_t kMaxChannelWaitMs = 60000;

// Takes at once when something waits for this attachment (or it is not attached: the answer says so); else parks
// until its stream caches a message, the attachment ends, or `wait` runs out, and then looks again.
void channel_take_or_park(Bridge& bridge, const json& inner, const Reply& reply, std::chrono::milliseconds wait) {
  const auto key = session_key(inner);
  const auto row = bridge.journal().find_attachment(key.provider, key.session_id);
  if (wait.count() > 0 && !bridge.stopping() && row && row->state == AttachmentState::attached &&
      bridge.journal().pending(row->attachment_id, 1).empty()) {
    const auto resume = [&bridge, inner](const Reply& resumed, std::chrono::milliseconds left) {
      guarded(bridge, resumed, [&] { channel_take_or_park(bridge, inner, resumed, left); });
    };
    bridge.channel_waiters().park(row->attachment_id, wait, reply, resume);
    return;
  }
  op_take(bridge, inner, reply, nullptr);
}

}  // namespace

// The Claude channel's take: the session of the caller's provider process (dispatch resolved it), then `take`
// (release check, persisted as offered before the answer, never offered again: R-B5, R-B6). With wait_ms it is a
// long poll: no polling on the delivery path, the answer leaves as soon as the stream caches a message.
void op_channel_take(Bridge& bridge, const json& req, const Reply& reply, const AttachmentRow* session) {
  const AttachmentRow row = *session;  // resolved by dispatch() (claims_session)
  const auto wait = optional_int(req, "wait_ms", 0, 0, kMaxChannelWaitMs);
  json inner = req;
  inner.erase("process");
  inner.erase("wait_ms");
  inner["provider"] = row.provider;
  inner["session_id"] = row.session_id;
  channel_take_or_park(bridge, inner, reply, std::chrono::milliseconds(wait));
}

void op_peers(Bridge& bridge, const json&, const Reply& reply, const AttachmentRow* session) {
  const AttachmentRow row = *session;  // resolved by dispatch() (claims_session)
  const auto token = child_token(bridge, row);
  call_server(bridge, "GET", row.server_url, "/v1/agents", token, nullptr, [&bridge, row, reply](const ServerAnswer& a) {
    guarded(bridge, reply, [&] {
      if (a.error != nullptr) throw *a.error;
      json peers = json::array();
      const auto me = fold_name(row.agent_name);
      for (const auto& agent : a.body->value("agents", json::array())) {
        if (!agent.is_object() || !agent.contains("agent_name") || !agent["agent_name"].is_string()) continue;
        const auto name = agent["agent_name"].get<std::string>();
        if (name.empty() || fold_name(name) == me) continue;
        peers.push_back({{"agent_name", name},
                         {"purpose", agent.value("purpose", "")},
                         {"provider", agent.value("provider", "")},
                         {"connected", agent.value("connected", false)}});
      }
      json out = agent_meta(row);
      out["peers"] = std::move(peers);
      reply.ok(out);
    });
  });
}

}  // namespace agentworks::bridge
