// agentworks wakeups schedule|list|cancel|pause|resume: the person's side of durable wakeups (R-W1..R-W5). A
// wakeup prompts the chat attached as NAME again at a time; it is stored on the server with the agent, so it
// survives restarts and a move of the name. Pause holds every wakeup of the account until resume.
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/server_client.hpp"
#include "agentworks/utc_time.hpp"
#include "checks.hpp"
#include "command.hpp"
#include "output.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

std::string wakeups_path(const std::string& agent) { return "/v1/agents/" + agent_path_segment(agent) + "/wakeups"; }

std::string due_text(const json& w) {
  const json due = w.value("due_at", json());
  return due.is_number_integer() ? utc_text(due.get<std::int64_t>()) : std::string("?");
}

void print_wakeup(const json& w) {
  std::cout << text_or(w, "wakeup_id") << " " << text_or(w, "state") << ", due " << due_text(w) << ": "
            << text_or(w, "note") << "\n";
}

class WakeupsSchedule final : public Command {
 public:
  void define(Options& options) override {
    options.option("--agent", agent_, "The agent whose chat the wakeup prompts").required();
    options.option("--after-minutes", after_minutes_, "Minutes from now (1-43200)");
    options.option("--at", at_, "An RFC 3339 time with a zone, e.g. 2026-12-24T09:00:00Z (at most 30 days ahead)");
    options.option("--note", note_, "What to check when it comes (1-1000 characters)").required();
    options.option("--wakeup-id", wakeup_id_, "Reschedule this pending wakeup instead of adding one");
  }

  json run(const Context& ctx) override {
    if (after_minutes_.has_value() == at_.has_value())
      throw Error(ErrorCode::usage, "give exactly one of --after-minutes N and --at TIME");
    json body{{"note", note_}};
    if (after_minutes_) body["after_minutes"] = *after_minutes_;
    if (at_) body["at"] = *at_;
    if (wakeup_id_) body["wakeup_id"] = *wakeup_id_;
    Config config = require_login(ctx);
    return client_for(config).post(wakeups_path(agent_), body);
  }

  void print(const json& w) const override {
    std::cout << (wakeup_id_ ? "rescheduled " : "scheduled ");
    print_wakeup(w);
  }

 private:
  std::string agent_;
  std::optional<long long> after_minutes_;
  std::optional<std::string> at_;
  std::string note_;
  std::optional<std::string> wakeup_id_;
};

class WakeupsList final : public Command {
 public:
  void define(Options& options) override {
    options.option("--agent", agent_, "The agent whose wakeups to list (crew:NAME: a Crew's own agent)").required();
  }

  json run(const Context& ctx) override {
    Config config = require_login(ctx);
    return client_for(config).get(wakeups_path(agent_));
  }

  void print(const json& out) const override {
    const json list = out.value("wakeups", json::array());
    const std::string name = text_or(out, "agent_name", agent_);
    std::cout << (name.rfind("crew:", 0) == 0 ? "" : "agent:") << name << ": " << list.size() << " wakeup(s)"
              << (out.value("paused", false) ? "; wakeups are paused (agentworks wakeups resume)" : "") << "\n";
    for (const json& w : list) print_wakeup(w);
  }

 private:
  std::string agent_;
};

class WakeupsCancel final : public Command {
 public:
  void define(Options& options) override {
    options.option("--agent", agent_, "The agent (crew:NAME: a Crew's own agent)").required();
    options.option("--wakeup-id", wakeup_id_, "The pending wakeup to cancel").required();
  }

  json run(const Context& ctx) override {
    Config config = require_login(ctx);
    return client_for(config).post(wakeups_path(agent_) + "/" + url_encode(wakeup_id_) + "/cancel", json::object());
  }

  void print(const json& w) const override { print_wakeup(w); }

 private:
  std::string agent_;
  std::string wakeup_id_;
};

class WakeupsHold final : public Command {
 public:
  explicit WakeupsHold(bool pause) : pause_(pause) {}
  void define(Options&) override {}

  json run(const Context& ctx) override {
    Config config = require_login(ctx);
    return client_for(config).post(pause_ ? "/v1/wakeups/pause" : "/v1/wakeups/resume", json::object());
  }

  void print(const json&) const override {
    std::cout << (pause_ ? "wakeups paused: due ones wait until `agentworks wakeups resume`\n"
                         : "wakeups resumed: due ones fire on the next tick\n");
  }

 private:
  bool pause_;
};

}  // namespace

std::unique_ptr<Command> make_wakeups_schedule() { return std::make_unique<WakeupsSchedule>(); }
std::unique_ptr<Command> make_wakeups_list() { return std::make_unique<WakeupsList>(); }
std::unique_ptr<Command> make_wakeups_cancel() { return std::make_unique<WakeupsCancel>(); }
std::unique_ptr<Command> make_wakeups_pause() { return std::make_unique<WakeupsHold>(true); }
std::unique_ptr<Command> make_wakeups_resume() { return std::make_unique<WakeupsHold>(false); }

}  // namespace agentworks::cli
