// command: a person's typed `/agentworks VERB …`, parsed by the hook (docs/protocol.md "Hook ops"). Each verb runs
// the op of the same job (attach, detach, resume, cleanup) and adds `text`, a sentence shown to the person.
// Only this path and the terminal attach a chat; no MCP tool reaches it (invariant 6, R-H4, R-H6).
#include <set>

#include <nlohmann/json.hpp>

#include "agentworks/validation.hpp"
#include "bridge.hpp"
#include "delivery_notices.hpp"
#include "login_config.hpp"
#include "native/native_router.hpp"
#include "op_guard.hpp"
#include "ops.hpp"
#include "proposal_name.hpp"
#include "request_fields.hpp"
#include "server_call.hpp"

namespace agentworks::bridge {

using nlohmann::json;

namespace {

// How the person types the command in this provider: Codex's TUI rejects unknown slash commands.
std::string typed(const std::string& provider, const std::string& rest) {
  return "`" + std::string(provider == "codex" ? "agentworks " : "/agentworks ") + rest + "`";
}

std::string waiting_sentence(std::int64_t n) {
  if (n == 0) return "No messages are waiting.";
  return n == 1 ? std::string("1 message is waiting.") : std::to_string(n) + " messages are waiting.";
}

std::string described(const std::string& agent, const std::string& purpose) {
  return purpose.empty() ? agent : agent + " (" + purpose + ")";
}

// After an attach: messages stored for the name and not yet acknowledged (on the server after the receive
// watermark, plus those already cached locally), for the sentence the person sees. Best effort.
void count_waiting(Bridge& bridge, const json& attached, const Reply& reply, std::function<void(std::optional<std::int64_t>)> done) {
  const auto row = bridge.journal().attachment(attached.value("attachment_id", ""));
  const auto token = row ? bridge.token_for(*row) : std::nullopt;
  if (!row || !token) {
    done(std::nullopt);
    return;
  }
  const std::int64_t local = bridge.journal().counts(row->attachment_id).pending;
  const auto mark = bridge.journal().watermark(row->server_url, row->agent_name);
  call_server(
      bridge, "GET", row->server_url,
      "/v1/messages?agent_name=" + row->agent_name + "&after=" + (mark > 0 ? "m" + std::to_string(mark) : "0") +
          "&limit=100",
      *token, nullptr,
      [&bridge, reply, local, done](const ServerAnswer& a) {
        guarded(bridge, reply, [&] {
          if (a.error != nullptr) {
            done(std::nullopt);
            return;
          }
          std::int64_t stored = 0;
          for (const auto& m : a.body->value("messages", json::array())) {
            if (m.is_object() && m.contains("delivery") && m["delivery"].is_object() &&
                m["delivery"].value("state", "") == "stored") {
              ++stored;
            }
          }
          done(local + stored);
        });
      },
      5000);
}

void run_attach(Bridge& bridge, const json& req, const SessionKey& key, const AttachProposal& choice,
                const Reply& reply) {
  json inner = {{"provider", key.provider}, {"session_id", key.session_id}, {"agent_name", choice.agent_name},
                {"purpose", choice.purpose}};
  if (!choice.config.empty()) inner["config"] = choice.config;
  for (const char* field : {"process", "native", "native_remote", "provider_home"}) {
    if (req.contains(field)) inner[field] = req[field];
  }
  op_attach(bridge, inner, reply.then([&bridge, key, reply](const json& fields) {
    bridge.hook_state().forget(key);
    json out = fields;
    out["verb"] = "attach";
    const std::string agent = fields.value("agent_name", "");
    std::string text = fields.value("already_attached", false) ? "This chat is already attached as " : "Attached this chat as ";
    const auto route = bridge.native().view(fields.value("attachment_id", ""));
    text += described(agent, fields.value("purpose", "")) + ". " +
            native::route_sentence(route, "Messages to agent:" + agent);
    out["delivery"] = native::route_json(route);
    count_waiting(bridge, fields, reply, [reply, out, text](std::optional<std::int64_t> waiting) mutable {
      if (waiting) {
        out["waiting"] = *waiting;
        text += " " + waiting_sentence(*waiting);
      }
      out["text"] = text;
      reply.ok(out);
    });
  }));
}

void propose(Bridge& bridge, const json& req, const SessionKey& key, const Reply& reply) {
  if (const auto row = bridge.journal().find_attachment(key.provider, key.session_id);
      row && row->state == "attached") {
    reply.ok({{"verb", "attach"}, {"already_attached", true}, {"agent_name", row->agent_name},
              {"attachment_id", row->attachment_id}, {"state", row->state},
              {"text", "This chat is already attached as " + described(row->agent_name, row->purpose) + ". Type " +
                           typed(key.provider, "detach") + " first to attach it under another name."}});
    return;
  }
  const auto cfg = login_config(req);  // fails early when nobody is logged in
  const std::string config = optional_string(req, "config", 4096).value_or("");
  const std::string cwd = optional_string(req, "cwd", 4096).value_or("");
  std::set<std::string> taken;
  for (const auto& a : bridge.journal().attachments()) taken.insert(fold_name(a.agent_name));
  call_server(bridge, "GET", cfg.server_url, "/v1/agents", cfg.token, nullptr,
              [&bridge, reply, key, taken, cwd, config](const ServerAnswer& a) mutable {
                guarded(bridge, reply, [&] {
                  if (a.error != nullptr) throw *a.error;
                  for (const auto& agent : a.body->value("agents", json::array())) {
                    if (agent.is_object()) taken.insert(fold_name(agent.value("agent_name", "")));
                  }
                  AttachProposal p;
                  p.agent_name = unique_name(proposal_base(cwd, key.provider), taken);
                  p.purpose = default_purpose(key.provider, cwd);
                  p.config = config;
                  bridge.hook_state().propose(key, p);
                  reply.ok({{"verb", "attach"},
                            {"proposed", true},
                            {"agent_name", p.agent_name},
                            {"purpose", p.purpose},
                            {"text", "Proposed name " + p.agent_name + " with purpose \"" + p.purpose + "\". Type " +
                                         typed(key.provider, "attach --confirm") + " to attach this chat under it, or " +
                                         typed(key.provider, "attach NAME \"PURPOSE\"") + " to choose another."}});
                });
              });
}

void command_attach(Bridge& bridge, const json& req, const SessionKey& key, const Reply& reply) {
  // The person typed the name: the error says "name" (not the API's field) and shows what they typed.
  const auto name = optional_string(req, "name", 4096);
  if (name && !name->empty() && !valid_agent_name(*name)) {
    throw Error(ErrorCode::invalid_name,
                "the name \"" + echo_typed(*name) +
                    "\" is not valid: a name is 1-64 ASCII letters, digits, '.', '_' or '-', starting with a letter "
                    "or digit (for example reviewer or my-agent)");
  }
  if (optional_bool(req, "confirm", false)) {
    const auto p = bridge.hook_state().proposal(key);
    if (!p) {
      throw Error(ErrorCode::not_found,
                  "there is no proposal to confirm for this chat; type " + typed(key.provider, "attach") + " first");
    }
    run_attach(bridge, req, key, *p, reply);
    return;
  }
  if (name && !name->empty()) {
    AttachProposal choice;
    choice.agent_name = *name;
    choice.purpose = optional_string(req, "purpose", 4 * kMaxPurposeChars).value_or("");
    if (choice.purpose.empty()) choice.purpose = default_purpose(key.provider, optional_string(req, "cwd").value_or(""));
    choice.config = optional_string(req, "config", 4096).value_or("");
    run_attach(bridge, req, key, choice, reply);
    return;
  }
  propose(bridge, req, key, reply);
}

void command_status(Bridge& bridge, const SessionKey& key, const Reply& reply) {
  const auto row = bridge.journal().find_attachment(key.provider, key.session_id);
  if (!row) {
    reply.ok({{"verb", "status"}, {"attached", false},
              {"text", "This chat is not attached. Type " + typed(key.provider, "attach") + " to attach it."}});
    return;
  }
  const auto counts = bridge.journal().counts(row->attachment_id);
  const std::string stream = bridge.stream_state(row->attachment_id);
  const auto route = bridge.native().view(row->attachment_id);
  std::string text;
  if (row->state == "attached") {
    text = "This chat is attached as " + described(row->agent_name, row->purpose) + "; its connection is " + stream +
           ". " + waiting_sentence(counts.pending);
    if (counts.offered_not_admitted > 0) {
      text += " " + std::to_string(counts.offered_not_admitted) + " delivered not yet acknowledged.";
    }
    if (const auto held = bridge.held_back().count(row->attachment_id); held > 0) {
      text += " " + std::to_string(held) + (held == 1 ? " message waits" : " messages wait") +
              " on the server because the local cache is full; they follow as waiting ones are delivered.";
    }
    if (counts.possibly_lost > 0) {
      text += " " + std::to_string(counts.possibly_lost) +
              (counts.possibly_lost == 1 ? " earlier delivery" : " earlier deliveries") +
              " may not have arrived; `agentworks status --agents` shows how to read them.";
    }
    text += " " + native::route_sentence(route, "Messages");
    if (!route.last.empty()) text += " Last native push: " + route.last + ".";
  } else if (row->state == "offline") {
    text = "This chat's attachment " + row->agent_name + " is offline; messages wait on the server. Type " +
           typed(key.provider, "resume") + " to reconnect it.";
  } else {
    text = "This chat's attachment " + row->agent_name +
           " was taken over by another chat or ended; nothing is delivered here. Type " +
           typed(key.provider, "attach " + row->agent_name) + " to take the name back.";
  }
  json out = {{"verb", "status"},
              {"attached", row->state == "attached"},
              {"state", row->state},
              {"agent_name", row->agent_name},
              {"attachment_id", row->attachment_id},
              {"purpose", row->purpose},
              {"stream", stream},
              {"pending", counts.pending},
              {"offered_not_admitted", counts.offered_not_admitted},
              {"withheld", counts.withheld},
              {"delivery", native::route_json(route)},
              {"text", text}};
  add_held_and_lost(bridge, *row, counts, out);
  reply.ok(out);
}

}  // namespace

void op_command(Bridge& bridge, const json& req, const Reply& reply) {
  const auto key = session_key(req);
  const auto verb = required_string(req, "verb", 32);
  if (verb == "attach") {
    command_attach(bridge, req, key, reply);
  } else if (verb == "status") {
    command_status(bridge, key, reply);
  } else if (verb == "detach") {
    op_detach(bridge, req, reply.then([&bridge, key, reply](const json& fields) {
      bridge.hook_state().forget(key);
      json out = fields;
      const std::string agent = fields.value("agent_name", "");
      out["verb"] = "detach";
      out["text"] = "Detached this chat from " + agent + ". Messages to agent:" + agent +
                    " wait on the server until a chat attaches the name again.";
      reply.ok(out);
    }));
  } else if (verb == "resume") {
    op_resume(bridge, req, reply.then([&bridge, reply, key](const json& fields) {
      json out = fields;
      out["verb"] = "resume";
      out["text"] = "Reconnected this chat as " + fields.value("agent_name", "") + ". " +
                    native::route_sentence(bridge.native().view(fields.value("attachment_id", "")), "Waiting messages");
      reply.ok(out);
    }));
  } else if (verb == "cleanup") {
    op_cleanup(bridge, req, reply.then([reply](const json& fields) {
      json out = fields;
      out["verb"] = "cleanup";
      out["text"] = "Cleaned up local agentworks data: removed " +
                    std::to_string(fields.value("processed_removed", 0)) + " processed and " +
                    std::to_string(fields.value("offered_removed", 0)) +
                    " old delivered message records. Waiting messages stay.";
      reply.ok(out);
    }));
  } else {
    throw Error(ErrorCode::bad_request, "field 'verb' must be attach, status, detach, resume or cleanup");
  }
}

}  // namespace agentworks::bridge
