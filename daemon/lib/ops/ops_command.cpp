// command: a person's typed `/agentworks VERB …`, parsed by the hook (docs/protocol.md "Hook ops"). Each verb runs
// the op of the same job (attach, detach, resume, cleanup) and adds `text`, a sentence shown to the person.
// Only this path and the terminal attach a chat; no MCP tool reaches it (invariant 6, R-H4, R-H6).
#include <set>

#include <nlohmann/json.hpp>

#include "agentworks/validation.hpp"
#include "agentworks/providers.hpp"
#include "bridge.hpp"
#include "delivery/delivery_notices.hpp"
#include "delivery/op_guard.hpp"
#include "delivery/server_call.hpp"
#include "delivery/waiting_count.hpp"
#include "identity/name_holder.hpp"
#include "identity/proposal_name.hpp"
#include "native/native_router.hpp"
#include "ops/ops.hpp"
#include "request/request_fields.hpp"
#include "state/login_config.hpp"

namespace agentworks::bridge {

using nlohmann::json;

namespace {

// How the person types the command in this provider: Codex's TUI rejects unknown slash commands.
std::string typed(const std::string& provider, const std::string& rest) {
  return "`" + std::string(command_word_for(provider)) + " " + rest + "`";
}

std::string waiting_sentence(std::int64_t n) {
  if (n == 0) return "No messages are waiting.";
  return n == 1 ? std::string("1 message is waiting.") : std::to_string(n) + " messages are waiting.";
}

std::string described(const std::string& agent, const std::string& purpose) {
  return purpose.empty() ? agent : agent + " (" + purpose + ")";
}

// The answer when another connected chat holds the name and the person did not say `--take`: nothing changes.
json take_needed(const SessionKey& key, const AttachProposal& choice, bool purpose_typed, const NameHolder& holder) {
  std::string again = "attach " + choice.agent_name;
  if (purpose_typed) {  // quoted the way the hook reads it back
    again += " \"";
    for (const char c : choice.purpose) {
      if (c == '"' || c == '\\') again += '\\';
      again += c;
    }
    again += "\"";
  }
  again += " --take";
  return {{"verb", "attach"},
          {"attached", false},
          {"take_needed", true},
          {"agent_name", choice.agent_name},
          {"held_by", holder_json(holder)},
          {"text", "The name " + choice.agent_name + " is held by " + holder_description(holder) +
                       ". Attaching this chat under it would detach that chat. Nothing changed; to take the name, "
                       "type " + typed(key.provider, again) + "."}};
}

// The sentences after an attach that moved a name: from whom, and the name this chat held before.
std::string moved_sentences(Bridge& bridge, const SessionKey& key, const json& fields,
                            const std::optional<NameHolder>& holder, const std::optional<AttachmentRow>& previous,
                            json& out) {
  std::string text;
  const std::string agent = fields.value("agent_name", "");
  if (holder && !fields.value("already_attached", false)) {
    out["took_from"] = holder_json(*holder);
    text += " The name was held by " + holder_description(*holder) + "; that chat is now detached from it" +
            (holder->local ? " and is told so at its next turn end." : ".");
    if (holder->local) {
      // The losing chat's turn end and status say who took the name (the fence event may come before or after).
      bridge.journal().record_name_loss(holder->attachment_id, chat_description(key.provider, key.session_id),
                                        Bridge::now());
      // An offline holder has no stream to hear the server's fence: it is fenced here (a live one hears it too).
      bridge.fence(holder->attachment_id, "fenced:superseded");
    }
  }
  if (previous && previous->state != AttachmentState::fenced && fold_name(previous->agent_name) != fold_name(agent)) {
    out["released"] = previous->agent_name;
    text += " This chat's previous name " + previous->agent_name + " was released: messages to agent:" +
            previous->agent_name + " wait on the server until a chat attaches it.";
  }
  return text;
}

void run_attach(Bridge& bridge, const json& req, const SessionKey& key, const AttachProposal& choice,
                const std::optional<NameHolder>& holder, const Reply& reply) {
  json inner = {{"provider", key.provider}, {"session_id", key.session_id}, {"agent_name", choice.agent_name},
                {"purpose", choice.purpose}};
  if (!choice.config.empty()) inner["config"] = choice.config;
  for (const char* field : {"process", "native", "native_remote", "provider_home"}) {
    if (req.contains(field)) inner[field] = req[field];
  }
  const auto previous = bridge.journal().find_attachment(key.provider, key.session_id);
  const std::string cwd = optional_string(req, "cwd", 4096).value_or("");
  op_attach(bridge, inner, reply.then([&bridge, key, reply, holder, previous, cwd](const json& fields) {
    bridge.hook_state().forget(key);
    json out = fields;
    out["verb"] = "attach";
    const std::string agent = fields.value("agent_name", "");
    if (!cwd.empty()) bridge.journal().set_attachment_cwd(fields.value("attachment_id", ""), cwd);
    std::string text = fields.value("already_attached", false) ? "This chat is already attached as " : "Attached this chat as ";
    const auto route = bridge.native().view(fields.value("attachment_id", ""));
    text += described(agent, fields.value("purpose", "")) + ". " +
            native::route_sentence(route, "Messages to agent:" + agent);
    text += moved_sentences(bridge, key, fields, holder, previous, out);
    out["delivery"] = native::route_json(route);
    const auto row = bridge.journal().attachment(fields.value("attachment_id", ""));
    if (!row) {
      out["text"] = text;
      reply.ok(out);
      return;
    }
    count_waiting(bridge, *row, reply, [reply, out, text](std::optional<WaitingCount> waiting) mutable {
      if (waiting) {
        out["waiting"] = waiting->count;
        text += " " + waiting_sentence(waiting->count);
      }
      out["text"] = text;
      reply.ok(out);
    });
  }), nullptr);
}

// Asks the server who holds the name first: another connected chat keeps it unless the person said `--take`.
void attach_checked(Bridge& bridge, const json& req, const SessionKey& key, const AttachProposal& choice,
                    bool purpose_typed, const Reply& reply) {
  json login = json::object();
  if (!choice.config.empty()) login["config"] = choice.config;
  const auto cfg = login_config(login);  // fails early when nobody is logged in
  const bool take = optional_bool(req, "take", false);
  find_name_holder(bridge, cfg, key, choice.agent_name, reply,
                   [&bridge, req, key, choice, purpose_typed, take, reply](std::optional<NameHolder> holder) {
                     if (holder && holder->connected && !take) {
                       reply.ok(take_needed(key, choice, purpose_typed, *holder));
                       return;
                     }
                     run_attach(bridge, req, key, choice, holder, reply);
                   });
}

void propose(Bridge& bridge, const json& req, const SessionKey& key, const Reply& reply) {
  if (const auto row = bridge.journal().find_attachment(key.provider, key.session_id);
      row && row->state == AttachmentState::attached) {
    reply.ok({{"verb", "attach"}, {"already_attached", true}, {"agent_name", row->agent_name},
              {"attachment_id", row->attachment_id}, {"state", std::string(to_string(row->state))},
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
    attach_checked(bridge, req, key, *p, false, reply);
    return;
  }
  if (name && !name->empty()) {
    AttachProposal choice;
    choice.agent_name = *name;
    choice.purpose = optional_string(req, "purpose", 4 * kMaxPurposeChars).value_or("");
    const bool purpose_typed = !choice.purpose.empty();
    if (choice.purpose.empty()) choice.purpose = default_purpose(key.provider, optional_string(req, "cwd").value_or(""));
    choice.config = optional_string(req, "config", 4096).value_or("");
    attach_checked(bridge, req, key, choice, purpose_typed, reply);
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
  if (row->state == AttachmentState::attached) {
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
  } else if (row->state == AttachmentState::offline) {
    text = "This chat's attachment " + row->agent_name + " is offline; messages wait on the server. Type " +
           typed(key.provider, "resume") + " to reconnect it.";
  } else if (const auto loss = bridge.journal().name_loss(row->attachment_id)) {
    text = name_loss_sentence(*row, *loss);
    text[0] = 'T';
  } else {
    text = "This chat's attachment " + row->agent_name +
           " was taken over by another chat or ended; nothing is delivered here. Type " +
           typed(key.provider, "attach " + row->agent_name) + " to take the name back.";
  }
  json out = {{"verb", "status"},
              {"attached", row->state == AttachmentState::attached},
              {"state", std::string(to_string(row->state))},
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

// One folder is the other or inside it: a chat started in a subfolder is of the same project.
bool same_project(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
  const auto inside = [](const std::string& child, const std::string& parent) {
    return child.size() > parent.size() && child.compare(0, parent.size(), parent) == 0 &&
           (parent.back() == '/' || child[parent.size()] == '/');
  };
  return a == b || inside(a, b) || inside(b, a);
}

// `resume` in a chat that never attached: resume reconnects only the same chat (R-H11), so say which
// offline names this project's chats held and the exact command that attaches one of them here.
json resume_unattached(Bridge& bridge, const json& req, const SessionKey& key) {
  const std::string cwd = optional_string(req, "cwd", 4096).value_or("");
  json names = json::array();
  std::string listed;
  std::string first;
  for (const auto& row : bridge.journal().attachments()) {
    if (row.state != AttachmentState::offline ||
        !same_project(bridge.journal().attachment_cwd(row.attachment_id), cwd)) {
      continue;
    }
    names.push_back({{"agent_name", row.agent_name}, {"provider", row.provider}, {"session_id", row.session_id},
                     {"attachment_id", row.attachment_id}, {"purpose", row.purpose}});
    listed += (listed.empty() ? "" : ", ") + row.agent_name + " (" + chat_description(row.provider, row.session_id) +
              ")";
    if (first.empty()) first = row.agent_name;
  }
  std::string text = "This chat was never attached, so there is nothing to resume here (resume reconnects the chat "
                     "that held a name).";
  if (first.empty()) {
    text += " No chat of this project holds an offline name. Type " + typed(key.provider, "attach") +
            " to attach this chat.";
  } else {
    text += " Offline names this project's chats held: " + listed + ". To attach this chat under one of them, type " +
            typed(key.provider, "attach " + first) + (names.size() > 1 ? " (or another of the names)" : "") +
            "; its waiting messages arrive here.";
  }
  return {{"verb", "resume"}, {"attached", false}, {"offline_names", names}, {"text", text}};
}

}  // namespace

void op_command(Bridge& bridge, const json& req, const Reply& reply, const AttachmentRow*) {
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
    }), nullptr);
  } else if (verb == "resume") {
    if (!bridge.journal().find_attachment(key.provider, key.session_id)) {
      reply.ok(resume_unattached(bridge, req, key));
      return;
    }
    op_resume(bridge, req, reply.then([&bridge, reply, key](const json& fields) {
      json out = fields;
      out["verb"] = "resume";
      out["text"] = "Reconnected this chat as " + fields.value("agent_name", "") + ". " +
                    native::route_sentence(bridge.native().view(fields.value("attachment_id", "")), "Waiting messages");
      reply.ok(out);
    }), nullptr);
  } else if (verb == "cleanup") {
    op_cleanup(bridge, req, reply.then([reply](const json& fields) {
      json out = fields;
      out["verb"] = "cleanup";
      out["text"] = "Cleaned up local agentworks data: removed " +
                    std::to_string(fields.value("processed_removed", 0)) + " processed and " +
                    std::to_string(fields.value("offered_removed", 0)) +
                    " old delivered message records. Waiting messages stay.";
      reply.ok(out);
    }), nullptr);
  } else {
    throw Error(ErrorCode::bad_request, "field 'verb' must be attach, status, detach, resume or cleanup");
  }
}

}  // namespace agentworks::bridge
