#include "identity/name_holder.hpp"

#include <ctime>

#include <nlohmann/json.hpp>

#include "agentworks/validation.hpp"
#include "agentworks/providers.hpp"
#include "delivery/op_guard.hpp"
#include "delivery/server_call.hpp"
#include "services/server_calls.hpp"

namespace agentworks::bridge {

using nlohmann::json;

namespace {

std::string provider_title(const std::string& provider) {
  if (const auto known = provider_from_name(provider)) return std::string(provider_info(*known).short_name);
  return provider.empty() ? std::string("agent") : provider;
}

// Long provider ids (UUIDs) shortened so a person can still tell two apart: Codex thread ids (UUIDv7) of chats
// started close together share their first characters, so the end is kept too.
std::string short_session(const std::string& id) {
  if (id.size() <= 14) return id;
  return id.substr(0, 8) + "\u2026" + id.substr(id.size() - 4);
}

}  // namespace

std::string clock_time(std::int64_t unix_seconds) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

std::string chat_description(const std::string& provider, const std::string& session_id) {
  return "a " + provider_title(provider) + " chat (session " + short_session(session_id) + ")";
}

std::string holder_description(const NameHolder& h) {
  std::string text = std::string(h.connected ? "a connected " : "an offline ") + provider_title(h.provider) +
                     " chat (session " + short_session(h.session_id);
  if (h.since > 0) text += ", attached since " + clock_time(h.since);
  if (!h.local) text += ", on another computer or bridge";
  return text + ")";
}

json holder_json(const NameHolder& h) {
  return {{"attachment_id", h.attachment_id}, {"provider", h.provider}, {"session_id", h.session_id},
          {"since", h.since},                 {"connected", h.connected}, {"local", h.local}};
}

std::string name_loss_sentence(const AttachmentRow& row, const NameLoss& loss) {
  const std::string typed(command_word_for(row.provider));
  const std::string who = loss.taken_by.empty() ? std::string("another chat") : loss.taken_by;
  return "this chat lost the name " + row.agent_name + " to " + who + " at " + clock_time(loss.taken_at) +
         "; messages to agent:" + row.agent_name + " go there now and nothing more is delivered here. Type `" +
         typed + " attach " + row.agent_name + " --take` to take the name back.";
}

void find_name_holder(ServerCalls& bridge, const Config& cfg, const SessionKey& self, const std::string& agent,
                      const Reply& reply, std::function<void(std::optional<NameHolder>)> done) {
  if (!valid_agent_name(agent)) {
    done(std::nullopt);  // the attach refuses the name with its own error
    return;
  }
  call_server(bridge, "GET", cfg.server_url, "/v1/attachments?agent_name=" + agent, cfg.token, nullptr,
              [&bridge, self, reply, done](const ServerAnswer& a) {
                guarded(bridge, reply, [&] {
                  if (a.error != nullptr) {
                    const auto code = a.error->code();
                    if (code == ErrorCode::not_found || code == ErrorCode::forbidden) {
                      done(std::nullopt);
                      return;
                    }
                    throw *a.error;
                  }
                  for (const auto& att : a.body->value("attachments", json::array())) {
                    if (!att.is_object() || att.value("state", "") != "current") continue;
                    NameHolder h;
                    h.attachment_id = att.value("attachment_id", "");
                    h.provider = att.value("provider", "");
                    h.session_id = att.value("native_session_id", "");
                    h.since = att.value("created_at", std::int64_t{0});
                    if (h.provider == self.provider && h.session_id == self.session_id) break;  // this chat
                    if (const auto row = bridge.journal().attachment(h.attachment_id)) {
                      h.local = true;
                      h.connected = row->state == AttachmentState::attached;
                    } else {
                      h.connected = att.value("streams", 0) > 0;
                    }
                    done(h);
                    return;
                  }
                  done(std::nullopt);
                });
              },
              5000);
}

}  // namespace agentworks::bridge
