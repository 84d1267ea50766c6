#include "events.hpp"

#include <nlohmann/json.hpp>
#include <variant>

#include "agentworks/bridge_client.hpp"
#include "agentworks/error.hpp"
#include "agentworks/local_protocol.hpp"
#include "agentworks/validation.hpp"
#include "hook_output.hpp"
#include "prompt_command.hpp"

namespace agentworks::hook {
namespace {

using nlohmann::json;

json session_request(const HookContext& ctx, std::string_view op) {
  json r = {{"op", op}, {"provider", provider_name(ctx.provider)}, {"session_id", ctx.input.session_id}};
  if (ctx.process) {
    if (const auto key = ctx.process()) r["process"] = {{"pid", key->pid}, {"start", key->start}};
  }
  if (ctx.provider_home) r["provider_home"] = *ctx.provider_home;
  return r;
}

std::string string_of(const json& answer, const char* key) {
  const auto it = answer.find(key);
  return (it != answer.end() && it->is_string()) ? it->get<std::string>() : std::string();
}

std::string for_person(std::string text) {
  if (text.rfind("agentworks", 0) != 0) text.insert(0, "agentworks: ");
  return text;
}

// R-H1, R-H2, R-H3, R-H9: the waiting messages of exactly this session, as one follow-up, within the loop guard.
std::string on_stop(const HookContext& ctx) {
  const HookInput& in = ctx.input;
  if (in.session_id.empty()) return {};
  // Cursor: after the person aborted a run (or it failed), do not restart the agent with a follow-up.
  if (ctx.provider == Provider::cursor && !in.status.empty() && in.status != "completed") return {};
  json r = session_request(ctx, local_protocol::op::deliver);
  if (ctx.provider == Provider::cursor) {
    r["loop_count"] = in.loop_count.value_or(0) < 0 ? 0 : in.loop_count.value_or(0);
  } else {
    r["stop_hook_active"] = in.stop_hook_active;
    // R-X5: the final text, for a direct agent's reply (the bridge asks the server which mode the agent is in).
    if (in.last_assistant_message.size() > 4 * kMaxMessageChars) {
      r["last_assistant_message_too_long"] = true;
    } else if (!in.last_assistant_message.empty()) {
      r["last_assistant_message"] = in.last_assistant_message;
    }
  }
  r["max_continuations"] = ctx.max_continuations;
  r["max_chars"] = kMaxChars;
  const json a = ctx.call(r, kDeliverTimeout);
  if (a.value("attached", false) != true) return {};
  // For the person, not the model: another chat took this chat's name (R-H7).
  if (const std::string notice = string_of(a, "notice"); !notice.empty()) {
    return tell_person(ctx.provider, for_person(notice));
  }
  const std::string text = string_of(a, "text");
  return text.empty() ? std::string() : continue_with(ctx.provider, text);
}

std::string run_command(const HookContext& ctx, const PromptCommand& cmd) {
  if (ctx.input.session_id.empty()) {
    return block_prompt(ctx.provider, "agentworks: this chat's session id is missing from the hook input, so the "
                                      "command cannot name this chat; update the agent CLI and try again.");
  }
  json r = session_request(ctx, local_protocol::op::command);
  r["verb"] = verb_name(cmd.verb);
  if (cmd.name) r["name"] = *cmd.name;
  if (cmd.purpose) r["purpose"] = *cmd.purpose;
  if (cmd.confirm) r["confirm"] = true;
  if (cmd.take) r["take"] = true;
  if (cmd.no_native) r["native"] = false;
  if (cmd.native_remote) r["native_remote"] = *cmd.native_remote;
  if (!ctx.input.cwd.empty()) r["cwd"] = ctx.input.cwd;
  if (ctx.config) r["config"] = *ctx.config;
  try {
    const json a = ctx.call(r, kCommandTimeout);
    std::string text = string_of(a, "text");
    if (text.empty()) text = "done.";
    return block_prompt(ctx.provider, for_person(std::move(text)));
  } catch (const Error& e) {
    std::string text = for_person(e.what());
    if (e.code() == ErrorCode::unreachable) text += "; then type the command again.";
    return block_prompt(ctx.provider, text);
  }
}

// R-H4, R-H5, R-H6: a typed command is run by the bridge and shown to the person; it never reaches the model.
// Anything else passes untouched, without touching the socket (R-H9).
std::string on_prompt(const HookContext& ctx) {
  if (!ctx.input.prompt) return {};
  const PromptParse parsed = parse_prompt(*ctx.input.prompt, ctx.provider);
  if (const auto* usage = std::get_if<PromptUsage>(&parsed)) {
    return block_prompt(ctx.provider, usage_text(ctx.provider, usage->problem));
  }
  if (const auto* cmd = std::get_if<PromptCommand>(&parsed)) {
    try {
      return run_command(ctx, *cmd);
    } catch (const std::exception& e) {
      return block_prompt(ctx.provider, std::string("agentworks: the command failed: ") + e.what());
    }
  }
  // R-X3: the bridge counts the chat's turns (messages pushed into it from now on queue behind this one). R-H9:
  // the one question an ordinary prompt asks, with no process lookup; without a bridge nothing is attached.
  if (!ctx.input.session_id.empty()) {
    try {
      ctx.call(json{{"op", local_protocol::op::turn_start}, {"provider", provider_name(ctx.provider)},
                    {"session_id", ctx.input.session_id}},
               kTurnStartTimeout);
    } catch (...) {
    }
  }
  return {};
}

// R-H11: a resumed chat whose attachment went offline is told how to reconnect it.
std::string on_session_start(const HookContext& ctx) {
  if (ctx.input.session_id.empty()) return {};
  const json a = ctx.call(session_request(ctx, local_protocol::op::lookup), kLookupTimeout);
  if (string_of(a, "state") != "offline") return {};
  const std::string name = string_of(a, "agent_name");
  if (name.empty()) return {};
  const std::string resume = std::string(provider_info(ctx.provider).command_word) + " resume";
  return tell_person(ctx.provider, "agentworks: this chat was attached as " + name + "; type " + resume +
                                       " to reconnect it.");
}

// R-H11: the chat closed; its attachment goes offline and keeps its identity.
std::string on_session_end(const HookContext& ctx) {
  if (!ctx.input.session_id.empty()) ctx.call(session_request(ctx, local_protocol::op::offline), kOfflineTimeout);
  return {};
}

}  // namespace

std::string handle_event(Event event, const HookContext& ctx) {
  try {
    switch (event) {
      case Event::stop: return on_stop(ctx);
      case Event::prompt_submit: return on_prompt(ctx);
      case Event::session_start: return on_session_start(ctx);
      case Event::session_end: return on_session_end(ctx);
    }
  } catch (...) {
    // A hook must never break the chat: no output.
  }
  return {};
}

BridgeCall socket_bridge_call() {
  return [](const json& request, std::chrono::milliseconds timeout) { return bridge_client::call(request, timeout); };
}

}  // namespace agentworks::hook
