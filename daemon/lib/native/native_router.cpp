#include "native/native_router.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>

#include <nlohmann/json.hpp>

#include "agentworks/delivery_budget.hpp"
#include "agentworks/paths.hpp"
#include "agentworks/providers.hpp"
#include "agentworks/random.hpp"
#include "delivery/delivery_batch.hpp"
#include "delivery/delivery_notices.hpp"
#include "delivery/notify.hpp"
#include "delivery/offer_flow.hpp"
#include "delivery/offline.hpp"
#include "delivery/op_guard.hpp"
#include "delivery/outbox.hpp"
#include "native/claude_inbox.hpp"
#include "native/codex_queue.hpp"
#include "native/codex_tui.hpp"
#include "native/process_watch.hpp"
#include "native/push_result.hpp"
#include "platform/log.hpp"
#include "platform/login_file.hpp"
#include "services/clock.hpp"
#include "services/delivery_services.hpp"
#include "platform/uv_handle.hpp"

namespace agentworks::bridge::native {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kMaxBatch = 20;                       // messages per frame / queued item
constexpr auto kBudget = static_cast<std::int64_t>(kDeliveryBudgetUnits);  // the same text budget as the Stop hook
constexpr std::chrono::milliseconds kGather{25};    // messages arriving together go in one push
constexpr std::chrono::milliseconds kHeldRetry{5000};  // the server could not be asked: try again
// Claude limits inbound bursts (about 30, refilling 0.5/s); stay well inside: a flood becomes fewer, larger
// pushes. Codex runs one turn per queued item, so the same bound keeps a flood from becoming a storm of turns.
constexpr double kBurst = 8.0;
constexpr double kRefillPerSecond = 0.5;

std::string route_name(const std::string& provider) {
  return std::string(agentworks::route_name(native_route_of(provider)));
}

bool alive(const process::ProcessKey& key) {
  const auto now = process::key_of(key.pid);
  return now && now->start == key.start;
}

std::optional<std::string> executable_of(long pid) {
  std::string buf(4096, '\0');
  const auto path = "/proc/" + std::to_string(pid) + "/exe";
  const auto n = ::readlink(path.c_str(), buf.data(), buf.size() - 1);
  if (n <= 0) return std::nullopt;
  buf.resize(static_cast<std::size_t>(n));
  if (buf.size() > 10 && buf.ends_with(" (deleted)")) return std::nullopt;
  return buf;
}

// `codex exec` runs one prompt and exits: its thread has no live endpoint, so a queued item would wait for a
// resume that may never come while the Stop hook could have delivered it. Any argument "exec" or "e" (its alias)
// counts; a false positive only keeps the Stop hook.
bool codex_exec_process(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string arg;
  bool first = true;
  while (std::getline(in, arg, '\0')) {
    if (!first && (arg == "exec" || arg == "e")) return true;
    first = false;
  }
  return false;
}

bool native_enabled_globally() {
  const LoginView& view = current_login();
  // An unreadable login stops attach anyway; the setting is the person's, default on.
  return view.unreadable || !view.login || view.login->native;
}

std::string count_words(std::size_t n) {
  return n == 1 ? std::string("1 message") : std::to_string(n) + " messages";
}

}  // namespace

json route_json(const RouteView& v) {
  return json{{"route", v.route}, {"native", v.native}, {"checking", v.checking}, {"reason", v.reason},
              {"last", v.last}};
}

std::string route_sentence(const RouteView& v, const std::string& subject) {
  if (v.native) {
    const char* through = v.route == "claude-inbox" ? " arrive at once through Claude Code's session inbox"
                          : v.route == "pi-steer"   ? " arrive at once through the agentworks Pi extension"
                                                    : " arrive at once through Codex's queue";
    return subject + through + " (after the current turn when it is busy).";
  }
  if (v.checking) {
    return subject + " arrive at once through Codex's queue when the installed Codex supports it, else at the end "
                     "of each turn.";
  }
  return subject + " arrive at the end of each turn (native push is off: " + v.reason + ").";
}

NativeSettings parse_settings(const std::string& json_text) {
  NativeSettings s;
  if (json_text.empty()) return s;
  const auto j = json::parse(json_text, nullptr, false);
  if (!j.is_object()) return s;
  if (j.contains("enabled") && j["enabled"].is_boolean()) s.enabled = j["enabled"].get<bool>();
  if (j.contains("remote") && j["remote"].is_string()) s.remote = j["remote"].get<std::string>();
  if (j.contains("home") && j["home"].is_string()) s.home = j["home"].get<std::string>();
  return s;
}

std::string settings_json(const NativeSettings& s) {
  return json{{"enabled", s.enabled}, {"remote", s.remote}, {"home", s.home}}.dump();
}

struct NativeRouter::Route {
  enum class State { off, probing, on };
  std::string attachment_id;
  std::string provider;
  std::uint64_t generation = 0;  // bumped on every (re)bind: late answers of an older binding are ignored
  State state = State::off;
  std::string reason = "not bound yet";
  std::string last;
  process::ProcessKey process;
  std::optional<ClaudeBinding> claude;
  std::optional<CodexBinding> codex;
  // Codex: the TUI that shows the chat (the provider itself with --no-daemon) and the watch on its end.
  std::optional<process::ProcessKey> tui;
  std::string no_tui_reason;
  std::unique_ptr<ProcessWatch> tui_watch;
  bool in_flight = false;
  std::optional<Clock::time_point> due;
  double tokens = kBurst;
  Clock::time_point refilled = Clock::now();
};

// What one push needs after its offer was persisted, whatever happens to the route meanwhile.
struct PushState {
  std::string attachment_id;
  std::string agent_name;
  std::uint64_t generation = 0;
  std::string provider;
  std::optional<ClaudeBinding> claude;
  std::optional<CodexBinding> codex;
  std::optional<process::ProcessKey> tui;
  bool pi = false;
  bool pushed = false;
  std::vector<std::string> lost_listed;  // possibly lost offers the pushed text lists (R-B6)
};

NativeRouter::NativeRouter(DeliveryServices& bridge, Outbox& outbox)
    : bridge_(bridge),
      outbox_(outbox),
      notifier_(bridge.loop()),
      pi_steer_(bridge.loop()),
      timer_(open_timer(bridge.loop(), this)) {}

NativeRouter::~NativeRouter() { stop(); }

void NativeRouter::stop() {
  stopped_ = true;
  for (auto& [id, r] : routes_) r->tui_watch.reset();  // their handles must not keep the loop alive
  pi_steer_.stop();
  close_timer(timer_);
}

NativeRouter::Route* NativeRouter::find(const std::string& attachment_id) {
  const auto it = routes_.find(attachment_id);
  return it == routes_.end() ? nullptr : it->second.get();
}

RouteView NativeRouter::view(const std::string& attachment_id) const {
  const auto it = routes_.find(attachment_id);
  if (it == routes_.end()) {
    RouteView none;
    none.route = "stop-hook";
    const auto row = bridge_.journal().attachment(attachment_id);
    none.reason = row && row->state != AttachmentState::attached
                      ? "the attachment is " + std::string(to_string(row->state))
                      : "the session's provider process has not been seen since the bridge started";
    return none;
  }
  const Route& r = *it->second;
  RouteView v;
  v.native = r.state == Route::State::on;
  v.route = v.native ? route_name(r.provider) : "stop-hook";
  v.checking = r.state == Route::State::probing;
  v.reason = v.native ? "" : (v.checking ? "checking the installed Codex" : r.reason);
  v.last = r.last;
  return v;
}

void NativeRouter::observe(const SessionKey& key, const std::optional<process::ProcessKey>& process,
                           const std::optional<std::string>& home) {
  if (stopped_ || native_route_of(key.provider) == NativeRoute::none) return;
  const auto row = bridge_.journal().find_attachment(key.provider, key.session_id);
  if (!row || row->state != AttachmentState::attached) return;
  bool changed = false;
  auto settings = parse_settings(bridge_.journal().native_settings(row->attachment_id));
  const std::string reported = home.value_or("");
  if (settings.home != reported) {
    settings.home = reported;
    bridge_.journal().set_native_settings(row->attachment_id, settings_json(settings));
    changed = true;
  }
  // A resumed or restarted provider process running this exact session is bound anew (never carried by name).
  if (process && (process->pid != row->provider_pid || process->start != row->provider_start)) {
    bridge_.journal().set_provider_process(row->attachment_id, process->pid, process->start);
    changed = true;
  }
  // Same process, same home: the binding stands (a route a push turned off stays off until the process changes,
  // so a refusing route is not retried every turn).
  if (changed || find(row->attachment_id) == nullptr) refresh(row->attachment_id);
}

void NativeRouter::refresh(const std::string& attachment_id) {
  if (stopped_) return;
  auto& slot = routes_[attachment_id];
  if (!slot) {
    slot = std::make_unique<Route>();
    slot->attachment_id = attachment_id;
  }
  bind(*slot);
}

void NativeRouter::forget(const std::string& attachment_id) {
  routes_.erase(attachment_id);
  pi_steer_.release(attachment_id);
}

void NativeRouter::pi_waiting(const std::string& attachment_id, std::chrono::milliseconds wait, Reply reply,
                              bool fresh) {
  if (stopped_) return;
  if (fresh) pi_steer_.clear_refusal(attachment_id);
  pi_steer_.park(attachment_id, wait, std::move(reply));
  Route* r = find(attachment_id);
  if (r == nullptr || r->state != Route::State::on) return refresh(attachment_id);
  if (bridge_.journal().counts(attachment_id).pending > 0) schedule(*r, kGather);
}

void NativeRouter::pi_refused(const std::string& attachment_id, std::string reason) {
  if (stopped_) return;
  pi_steer_.release(attachment_id);  // a wait of an earlier extension instance is answered idle
  pi_steer_.refuse(attachment_id, std::move(reason));
  refresh(attachment_id);
}

bool NativeRouter::pi_result(const std::string& attachment_id, const std::string& push_id, const PushResult& result) {
  return pi_steer_.result(attachment_id, push_id, result);
}

void NativeRouter::turn_off(Route& r, std::string reason) {
  if (r.state != Route::State::off || r.reason != reason) {
    log::info("native route of " + r.attachment_id + " off: " + reason + "; the Stop hook delivers");
  }
  r.state = Route::State::off;
  r.reason = std::move(reason);
  r.claude.reset();
  r.codex.reset();
}

void NativeRouter::bind(Route& r) {
  r.generation = next_generation_++;
  r.claude.reset();
  r.codex.reset();
  r.tui.reset();
  r.no_tui_reason.clear();
  r.tui_watch.reset();
  const auto row = bridge_.journal().attachment(r.attachment_id);
  if (!row) return turn_off(r, "the attachment is gone");
  r.provider = row->provider;
  if (row->state != AttachmentState::attached) {
    return turn_off(r, "the attachment is " + std::string(to_string(row->state)));
  }
  if (native_route_of(row->provider) == NativeRoute::none) {
    return turn_off(r, row->provider + " has no native route; messages arrive at the end of each turn");
  }
  if (!native_enabled_globally()) return turn_off(r, "native push is turned off in the config (\"native\": false)");
  const auto settings = parse_settings(bridge_.journal().native_settings(r.attachment_id));
  if (!settings.enabled) return turn_off(r, "native push was turned off for this attachment (attach --no-native)");
  if (row->provider_pid <= 0 || row->provider_start.empty()) {
    return turn_off(r, "the provider process is not known yet; it is bound at the session's next hook event");
  }
  r.process = {static_cast<long>(row->provider_pid), row->provider_start};
  if (!alive(r.process)) {
    return turn_off(r, "the provider process that ran this session has ended; the next hook event of the "
                       "session binds its new process");
  }
  if (is_provider(row->provider, Provider::pi)) {
    if (const auto refusal = pi_steer_.refusal(r.attachment_id)) return turn_off(r, *refusal);
    if (!pi_steer_.listening(r.attachment_id)) {
      return turn_off(r, "the agentworks Pi extension of this session has not asked for messages yet (it does "
                         "within 2 s of an attach or resume; if this stays, type /reload in Pi)");
    }
    r.state = Route::State::on;
    r.reason.clear();
    log::info("native route of " + r.attachment_id + " on: the agentworks Pi extension");
    if (bridge_.journal().counts(r.attachment_id).pending > 0) schedule(r, kGather);
    return;
  }
  // `codex exec` ends after its prompt by design: it is not a TUI whose end means the person left.
  if (is_provider(row->provider, Provider::codex) && !codex_exec_process(r.process.pid)) watch_codex_tui(r);
  if (is_provider(row->provider, Provider::claude)) {
    const auto dir = claude_sessions_dir(settings.home, paths::home_dir().string());
    auto found = bind_claude_session(dir, r.process.pid, r.process.start, row->session_id);
    if (!found.binding) return turn_off(r, found.reason);
    r.claude = std::move(*found.binding);
    r.state = Route::State::on;
    r.reason.clear();
    log::info("native route of " + r.attachment_id + " on: Claude Code " + r.claude->version + " session inbox");
    if (bridge_.journal().counts(r.attachment_id).pending > 0) schedule(r, kGather);
    return;
  }
  // Codex: the executable that runs this session's hooks, with the session's CODEX_HOME.
  if (codex_exec_process(r.process.pid)) {
    return turn_off(r, "a `codex exec` session has no live queue endpoint; messages arrive at its Stop hook");
  }
  if (!r.tui) return turn_off(r, r.no_tui_reason);
  const auto exe = executable_of(r.process.pid);
  if (!exe) return turn_off(r, "the Codex executable of the session could not be read from /proc");
  if (!settings.remote.empty() && !valid_remote(settings.remote)) {
    return turn_off(r, "--native-remote must be unix:///ABSOLUTE/SOCKET");
  }
  CodexBinding b{row->session_id, *exe, settings.home, settings.remote};
  r.codex = b;
  r.state = Route::State::probing;
  const auto gen = r.generation;
  const std::string id = r.attachment_id;
  probe_codex(bridge_.loop(), b, [this, id, gen](bool ok, std::string version, std::string reason) {
    Route* route = find(id);
    if (route == nullptr || route->generation != gen || stopped_) return;
    if (!ok) return turn_off(*route, std::move(reason));
    route->state = Route::State::on;
    route->reason.clear();
    log::info("native route of " + id + " on: Codex " + version + " queue");
    try {
      if (bridge_.journal().counts(id).pending > 0) schedule(*route, kGather);
    } catch (const std::exception& e) {
      log::error(std::string("native route: ") + e.what());
    }
  });
}

void NativeRouter::watch_codex_tui(Route& r) {
  auto choice = find_codex_tui(r.process.pid);
  if (!choice.tui) {
    r.no_tui_reason = std::move(choice.reason);
    return;
  }
  r.tui = *choice.tui;
  if (r.tui->pid != r.process.pid) {
    log::info("native route of " + r.attachment_id + ": the chat is shown by Codex TUI pid " +
              std::to_string(r.tui->pid) + " (hooks run in pid " + std::to_string(r.process.pid) + ")");
  }
  const std::string id = r.attachment_id;
  const auto gen = r.generation;
  r.tui_watch = std::make_unique<ProcessWatch>(bridge_.loop(), *r.tui, [this, id, gen] { tui_ended(id, gen); });
}

void NativeRouter::tui_ended(const std::string& attachment_id, std::uint64_t generation) {
  Route* r = find(attachment_id);
  if (r == nullptr || r->generation != generation || stopped_ || bridge_.stopping()) return;
  const std::string pid = r->tui ? std::to_string(r->tui->pid) : std::string("?");
  // A detach by exit, as SessionEnd would do (R-H11): the name stays for resume, messages wait on the server.
  bridge_.guard_journal("while going offline", [&] {
    take_offline(bridge_, attachment_id, "the Codex TUI that showed this chat (pid " + pid + ") ended");
  });
}

void NativeRouter::kick(const std::string& attachment_id) {
  Route* r = find(attachment_id);
  if (r == nullptr || r->state != Route::State::on) return;
  schedule(*r, kGather);
}

void NativeRouter::schedule(Route& r, std::chrono::milliseconds delay) {
  if (stopped_) return;
  const auto at = Clock::now() + delay;
  if (r.due && *r.due <= at) return;
  r.due = at;
  arm_timer();
}

void NativeRouter::arm_timer() {
  if (timer_ == nullptr) return;
  std::optional<Clock::time_point> first;
  for (const auto& [id, r] : routes_) {
    if (r->due && (!first || *r->due < *first)) first = r->due;
  }
  if (!first) return;
  const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(*first - Clock::now()).count();
  uv_timer_start(timer_, [](uv_timer_t* t) { static_cast<NativeRouter*>(t->data)->on_timer(); },
                 static_cast<std::uint64_t>(std::max<std::int64_t>(wait, 0)), 0);
}

void NativeRouter::on_timer() {
  const auto now = Clock::now();
  std::vector<std::string> ready;
  for (const auto& [id, r] : routes_) {
    if (r->due && *r->due <= now) ready.push_back(id);
  }
  for (const auto& id : ready) {
    Route* r = find(id);
    if (r == nullptr) continue;
    r->due.reset();
    bool started = false;
    try {
      started = bridge_.guard_journal("during a native push", [&] { start_push(*r); });
    } catch (const std::exception& e) {
      log::error(std::string("native push: ") + e.what());
    }
    if (!started) {
      r = find(id);
      if (r != nullptr) r->in_flight = false;
    }
  }
  arm_timer();
}

void NativeRouter::start_push(Route& r) {
  if (r.state != Route::State::on || r.in_flight || bridge_.stopping()) return;
  const auto row = bridge_.journal().attachment(r.attachment_id);
  if (!row || row->state != AttachmentState::attached) return;
  if (bridge_.journal().counts(r.attachment_id).pending == 0) return;
  // The bound process must still be the one running the session (R-N1): a restarted one is bound at its next
  // hook event.
  if (!alive(r.process)) {
    return turn_off(r, "the provider process that ran this session has ended; the next hook event of the "
                       "session binds its new process");
  }
  // Never queue into a thread whose TUI is gone: Codex's daemon would run it with nobody watching (R-H11).
  if (r.tui && !alive(*r.tui)) return tui_ended(r.attachment_id, r.generation);  // r is gone after this
  // Pi: between two waits of its extension nothing is offered; the next wait pushes.
  if (is_provider(r.provider, Provider::pi) && !pi_steer_.listening(r.attachment_id)) return;
  const auto now = Clock::now();
  r.tokens = std::min(kBurst, r.tokens + std::chrono::duration<double>(now - r.refilled).count() * kRefillPerSecond);
  r.refilled = now;
  if (r.tokens < 1.0) {
    schedule(r, std::chrono::milliseconds(static_cast<std::int64_t>((1.0 - r.tokens) / kRefillPerSecond * 1000) + 1));
    return;
  }
  const auto token = bridge_.token_for(*row);
  if (!token) return;
  r.tokens -= 1.0;
  r.in_flight = true;

  auto st = std::make_shared<PushState>();
  st->attachment_id = r.attachment_id;
  st->agent_name = row->agent_name;
  st->generation = r.generation;
  st->provider = r.provider;
  st->claude = r.claude;
  st->codex = r.codex;
  st->tui = r.tui;
  st->pi = is_provider(r.provider, Provider::pi);

  const auto notices = notices_for(bridge_, *row);
  OfferSelect select = [this, st, att = *row, notices](const std::vector<CachedMessage>& releasable, bool guidance) {
    const Route* current = find(st->attachment_id);
    if (current == nullptr || current->generation != st->generation || current->state != Route::State::on) {
      return std::vector<std::string>{};  // unbound while the server was asked: nothing is offered
    }
    return fitting_prefix(bridge_.journal(), att, releasable, guidance, kBudget, notices);
  };
  release_and_offer(bridge_, *row, *token, bridge_.journal().pending(r.attachment_id, kMaxBatch), std::move(select),
                    [this, st, notices](OfferOutcome outcome) { offer_done(st, notices, std::move(outcome)); },
                    /*pushed=*/true);
}

// When no push started (held, fenced, nothing releasable) the route is free again; a started push settles its
// offers from its own outcome (settle()).
void NativeRouter::offer_done(const std::shared_ptr<PushState>& st, const DeliveryNotices& notices,
                              OfferOutcome outcome) {
  const auto failed = [this, st](ErrorCode code, const std::string& message) {
    if (st->pushed) return;
    log::warn("native push of " + st->attachment_id + ": " + std::string(code_name(code)) + ": " + message);
    finished(st->attachment_id);
  };
  switch (outcome.kind) {
    case OfferOutcome::Kind::error:
      failed(outcome.code, outcome.message);
      return;
    case OfferOutcome::Kind::held:
      finished(st->attachment_id);
      if (Route* again = find(st->attachment_id)) schedule(*again, kHeldRetry);
      return;
    case OfferOutcome::Kind::offered:
      break;
  }
  guarded_to(bridge_, failed, [&] {
    try {
      push_offered(st, notices, outcome);
    } catch (...) {
      offer_not_carried(bridge_, outcome);  // nothing was written (R-B17)
      throw;
    }
  });
}

void NativeRouter::push_offered(const std::shared_ptr<PushState>& st, const DeliveryNotices& notices,
                                const OfferOutcome& outcome) {
  const auto& att = outcome.row;
  const auto& batch = outcome.batch;
  const auto text = offered_text(bridge_, att, batch, kBudget, notices).text;
  if (text.text.empty()) {
    finished(st->attachment_id);
    return;
  }
  std::vector<CachedMessage> included(batch.messages.begin(),
                                      batch.messages.begin() + static_cast<std::ptrdiff_t>(text.included));
  st->lost_listed = text.lost_listed;
  st->pushed = true;
  const auto guidance = batch.guidance;
  const auto previous = batch.previous_guidance;
  auto done = [this, st, included, guidance, previous](PushResult result) {
    settle(*st, included, guidance, previous, result);
  };
  // R-N2: the offer is persisted (offer_flow committed it); only now is anything written.
  if (st->claude) {
    push_claude(bridge_.loop(), *st->claude, new_id("aw"), text.text, std::move(done));
  } else if (st->pi) {
    pi_steer_.push(st->attachment_id, text.text, std::move(done));
  } else {
    push_codex(bridge_.loop(), *st->codex, text.text, std::move(done));
  }
}

void NativeRouter::settle(const PushState& st, const std::vector<CachedMessage>& included, bool guidance,
                          std::optional<std::int64_t> previous_guidance, const PushResult& result) {
  std::string summary;
  std::vector<std::string> ids;
  for (const auto& m : included) ids.push_back(m.message_id);
  try {
    switch (result.outcome) {
      case PushOutcome::accepted:
        if (is_provider(st.provider, Provider::codex) && st.tui && !alive(*st.tui)) {
          // Queued, but the TUI ended meanwhile: the daemon may run it with nobody watching. Not admitted
          // (R-B16); it stays offered, the person is told and can read it (R-B14).
          settle_offers(bridge_, ids, false);
          summary = "uncertain (the Codex TUI ended while the message was queued); " +
                    count_words(included.size()) + " stay readable with `agentworks messages read`";
          notifier_.notify(waiting_title(), uncertain_text(st.agent_name));
          break;
        }
        settle_offers(bridge_, ids, true);
        lost_offers_told(bridge_, st.attachment_id, st.lost_listed);
        summary = "delivered " + count_words(included.size()) + " through " + route_name(st.provider) +
                  (result.detail.empty() ? "" : " (" + result.detail + ")");
        if (is_provider(st.provider, Provider::codex)) record_queue_admission(st, included);
        break;
      case PushOutcome::refused:
        // R-N2: nothing was written: the messages wait for the Stop hook, the instructions too (R-B17).
        bridge_.journal().return_to_pending(st.attachment_id, included);
        if (guidance) bridge_.journal().restore_guidance(st.attachment_id, previous_guidance);
        summary = "refused before writing (" + result.detail + "); " + count_words(included.size()) +
                  " back to waiting for the Stop hook";
        if (Route* r = find(st.attachment_id); r != nullptr && r->generation == st.generation) {
          turn_off(*r, route_name(st.provider) + " refused: " + result.detail);
        }
        break;
      case PushOutcome::ambiguous:
        // R-N2, R-B14: it may have arrived: never pushed again; the person can read them explicitly, and the
        // chat's next delivery lists them.
        settle_offers(bridge_, ids, false);
        summary = "uncertain (" + result.detail + "); " + count_words(included.size()) +
                  " stay readable with `agentworks messages read`";
        notifier_.notify(waiting_title(), uncertain_text(st.agent_name));
        break;
    }
  } catch (const sql::SqliteError& e) {
    bridge_.journal_error("after a native push", e);
    summary = std::string("journal error after the push: ") + e.what();
  }
  log::info("native push to " + st.agent_name + " (" + st.attachment_id + "): " + summary);
  if (Route* r = find(st.attachment_id)) r->last = summary;
  finished(st.attachment_id);
}

void NativeRouter::record_queue_admission(const PushState& st, const std::vector<CachedMessage>& included) {
  // `codex queue` exiting 0 proves the queue admitted the item (R-M14); processed stays the agent's to say.
  for (const auto& m : included) {
    const json body = {{"delivery", "admitted"}, {"via", "codex-queue"}};
    const std::string path = "/v1/messages/" + m.message_id + "/receipt";
    bridge_.journal().set_delivery(m.message_id, MessageState::admitted, unix_now());
    Reply quiet(std::make_shared<const json>(nullptr), [](const std::string&) {});
    outbox_.submit(st.attachment_id, "ack", path, body, new_id("sub"), quiet);
  }
}

void NativeRouter::finished(const std::string& attachment_id) {
  Route* r = find(attachment_id);
  if (r == nullptr) return;
  r->in_flight = false;
  try {
    if (r->state == Route::State::on && bridge_.journal().counts(attachment_id).pending > 0) schedule(*r, kGather);
  } catch (const std::exception& e) {
    log::error(std::string("native route: ") + e.what());
  }
}

}  // namespace agentworks::bridge::native
