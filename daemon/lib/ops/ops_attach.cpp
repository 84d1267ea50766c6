// attach and detach: the only ops that create or end server state for a chat (invariant 6: a person's typed
// command reaches them through the hook; no MCP tool calls them).
#include <memory>

#include <nlohmann/json.hpp>

#include "agentworks/validation.hpp"
#include "agentworks/providers.hpp"
#include "bridge.hpp"
#include "delivery/op_guard.hpp"
#include "delivery/server_call.hpp"
#include "native/codex_queue.hpp"
#include "native/native_router.hpp"
#include "ops/ops.hpp"
#include "platform/log.hpp"
#include "request/request_fields.hpp"
#include "state/login_config.hpp"

namespace agentworks::bridge {

using nlohmann::json;

namespace {

json attachment_json(const AttachmentRow& row) {
  return {{"attachment_id", row.attachment_id}, {"agent_name", row.agent_name}, {"provider", row.provider},
          {"session_id", row.session_id},       {"purpose", row.purpose},       {"state", std::string(to_string(row.state))},
          {"connection_id", row.connection_id}};
}

struct AttachFlow : std::enable_shared_from_this<AttachFlow> {
  AttachFlow(Bridge& b, Reply r) : bridge(b), reply(std::move(r)) {}
  Bridge& bridge;
  Reply reply;
  SessionKey key;
  std::string agent;
  std::string purpose;
  Config cfg;
  std::optional<process::ProcessKey> process;  // stored with the attachment (R-H11)
  native::NativeSettings native;               // the person's switches and the provider's home
  std::optional<ChildCredential> child;
  bool created_child = false;

  void register_agent() {
    auto self = shared_from_this();
    const json body = {{"agent_name", agent}, {"purpose", purpose}, {"provider", key.provider}};
    call_server(bridge, "POST", cfg.server_url, "/v1/agents", cfg.token, body, [self](const ServerAnswer& a) {
      guarded(self->bridge, self->reply, [&] {
        if (a.error != nullptr) throw *a.error;
        self->child = self->bridge.children().load(self->cfg.server_url, self->agent);
        if (self->child) {
          self->create_attachment();
        } else {
          self->create_child();
        }
      });
    });
  }

  void create_child() {
    auto self = shared_from_this();
    // A newly created child supersedes abandoned siblings of the same agent (R-B21).
    const json body = {{"agent_name", agent},
                       {"label", "agentworks-bridge " + key.provider + " " + key.session_id},
                       {"supersede_siblings", true}};
    call_server(bridge, "POST", cfg.server_url, "/v1/connections", cfg.token, body, [self](const ServerAnswer& a) {
      guarded(self->bridge, self->reply, [&] {
        if (a.error != nullptr) throw *a.error;
        ChildCredential c;
        c.server_url = self->cfg.server_url;
        c.agent_name = self->agent;
        c.connection_id = a.body->value("connection_id", "");
        c.token = a.body->value("token", "");
        if (c.token.empty()) throw Error(ErrorCode::internal, "the server created a child connection without a token");
        self->bridge.children().save(c);  // 0600 (R-B19)
        self->child = c;
        self->created_child = true;
        self->create_attachment();
      });
    });
  }

  void create_attachment() {
    auto self = shared_from_this();
    const json body = {
        {"agent_name", agent}, {"purpose", purpose}, {"provider", key.provider}, {"native_session_id", key.session_id}};
    call_server(bridge, "POST", cfg.server_url, "/v1/attachments", child->token, body, [self](const ServerAnswer& a) {
      guarded(self->bridge, self->reply, [&] {
        if (a.error != nullptr) {
          // A stored child that was revoked or expired is replaced once, on this person-made attach (R-B21).
          if (a.error->code() == ErrorCode::unauthenticated && !self->created_child) {
            self->create_child();
            return;
          }
          throw *a.error;
        }
        self->finish(*a.body);
      });
    });
  }

  void finish(const json& att) {
    AttachmentRow row;
    row.attachment_id = att.value("attachment_id", "");
    if (row.attachment_id.empty()) throw Error(ErrorCode::internal, "the server answered without an attachment_id");
    row.provider = key.provider;
    row.session_id = key.session_id;
    row.agent_name = att.value("agent_name", agent);
    row.purpose = purpose;
    row.server_url = cfg.server_url;
    row.connection_id = child->connection_id;
    row.state = AttachmentState::attached;
    row.created_at = Bridge::now();  // a newly attached session gets fresh instructions (R-B17): no guidance_at
    if (process) {
      row.provider_pid = process->pid;
      row.provider_start = process->start;
    }
    // R-H7: messages cached but not yet offered for this name (e.g. in the session it moves away from) wait for
    // the new attachment; the stream resumes after them, so they would otherwise never arrive on attach.
    bridge.journal().adopt_pending(row);
    if (const auto old = bridge.journal().find_attachment(key.provider, key.session_id);
        old && old->attachment_id != row.attachment_id) {
      bridge.close_stream(old->attachment_id);
      bridge.journal().remove_attachment(old->attachment_id);
      bridge.chat_turns().forget(old->attachment_id);
    }
    bridge.journal().upsert_attachment(row);
    bridge.journal().set_native_settings(row.attachment_id, native::settings_json(native));
    bridge.chat_turns().ended(row.attachment_id);  // R-X3: the typed attach was blocked, no turn runs
    bridge.open_stream(row);
    bridge.native().refresh(row.attachment_id);
    log::info("attached " + row.agent_name + " to " + row.provider + " session " + row.session_id + " (" +
              row.attachment_id + ")");
    json out = attachment_json(row);
    out["created_child"] = created_child;
    reply.ok(out);
  }
};

// attach's native fields: `native` (false = --no-native), `native_remote` (Codex), `provider_home`.
native::NativeSettings native_settings_of(const json& req) {
  native::NativeSettings s;
  s.enabled = optional_bool(req, "native", true);
  s.remote = optional_string(req, "native_remote", 200).value_or("");
  if (!s.remote.empty()) {
    if (!is_provider(session_key(req).provider, Provider::codex)) {
      throw Error(ErrorCode::bad_request, "--native-remote is for Codex sessions only");
    }
    if (!native::valid_remote(s.remote)) {
      throw Error(ErrorCode::bad_request,
                  "--native-remote must be unix:///ABSOLUTE/SOCKET (an absolute path, no '..'); nothing was attached");
    }
  }
  s.home = optional_string(req, "provider_home", 4096).value_or("");
  if (!s.home.empty() && s.home.front() != '/') s.home.clear();
  return s;
}

}  // namespace

void op_attach(Bridge& bridge, const json& req, const Reply& reply, const AttachmentRow*) {
  auto flow = std::make_shared<AttachFlow>(bridge, reply);
  flow->key = session_key(req);
  flow->agent = required_string(req, "agent_name", 256);
  if (!valid_agent_name(flow->agent)) {
    throw Error(ErrorCode::invalid_name,
                "agent_name must be 1-64 ASCII letters, digits, '.', '_' or '-', starting with a letter or digit");
  }
  flow->purpose = required_string(req, "purpose", 4 * kMaxPurposeChars);
  if (utf8_length(flow->purpose).value_or(kMaxPurposeChars + 1) > kMaxPurposeChars) {
    throw Error(ErrorCode::bad_request, "purpose is at most 500 characters");
  }
  flow->cfg = login_config(req);
  flow->process = optional_process(req);
  flow->native = native_settings_of(req);
  if (const auto existing = bridge.journal().find_attachment(flow->key.provider, flow->key.session_id);
      existing && existing->state == AttachmentState::attached &&
      fold_name(existing->agent_name) == fold_name(flow->agent) &&
      existing->server_url == flow->cfg.server_url) {
    if (flow->process) {
      bridge.journal().set_provider_process(existing->attachment_id, flow->process->pid, flow->process->start);
    }
    bridge.journal().set_native_settings(existing->attachment_id, native::settings_json(flow->native));
    bridge.native().refresh(existing->attachment_id);
    json out = attachment_json(*existing);
    out["created_child"] = false;
    out["already_attached"] = true;
    reply.ok(out);
    return;
  }
  flow->register_agent();
}

void op_detach(Bridge& bridge, const json& req, const Reply& reply, const AttachmentRow*) {
  const auto key = session_key(req);
  const auto row = bridge.journal().find_attachment(key.provider, key.session_id);
  if (!row) throw Error(ErrorCode::not_found, "this session is not attached");
  const auto token = bridge.token_for(*row);
  // Another local session still holding this agent keeps the child connection.
  bool child_shared = false;
  for (const auto& other : bridge.journal().attachments()) {
    if (other.attachment_id != row->attachment_id && other.server_url == row->server_url &&
        fold_name(other.agent_name) == fold_name(row->agent_name) && other.state != AttachmentState::fenced) {
      child_shared = true;
    }
  }
  auto finish_local = [&bridge, row, child_shared, reply](bool revoked) {
    guarded(bridge, reply, [&] {
      bridge.close_stream(row->attachment_id);
      bridge.native().forget(row->attachment_id);
      bridge.journal().remove_attachment(row->attachment_id);
      bridge.chat_turns().forget(row->attachment_id);
      if (!child_shared) bridge.children().remove(row->agent_name);
      log::info("detached " + row->agent_name + " (" + row->attachment_id + ")");
      reply.ok({{"detached", true}, {"attachment_id", row->attachment_id}, {"agent_name", row->agent_name},
                {"child_revoked", revoked}});
    });
  };
  if (!token) {
    finish_local(false);
    return;
  }
  const std::string tok = *token;
  call_server(bridge, "DELETE", row->server_url, "/v1/attachments/" + row->attachment_id, tok, nullptr,
              [&bridge, row, tok, child_shared, finish_local, reply](const ServerAnswer& a) {
                guarded(bridge, reply, [&] {
                  // Already gone, fenced or revoked on the server: the local state still goes.
                  if (a.error != nullptr && a.error->code() == ErrorCode::unreachable) throw *a.error;
                  if (child_shared) {
                    finish_local(false);
                    return;
                  }
                  call_server(bridge, "DELETE", row->server_url, "/v1/connections/" + row->connection_id, tok,
                              nullptr, [reply, &bridge, finish_local](const ServerAnswer& b) {
                                guarded(bridge, reply, [&] {
                                  if (b.error != nullptr && b.error->code() == ErrorCode::unreachable) throw *b.error;
                                  finish_local(b.error == nullptr);
                                });
                              });
                });
              });
}

}  // namespace agentworks::bridge
