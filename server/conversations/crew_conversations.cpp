#include "conversations/crew_conversations.hpp"

#include <event2/event.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <deque>

#include "agentworks/random.hpp"
#include "agentworks/sha256.hpp"
#include "conversations/turn_prompt.hpp"
#include "declaration/agent_cli.hpp"
#include "crews/call_admission.hpp"
#include "declaration/declaration.hpp"
#include "agent/agent_invocation.hpp"
#include "agent/agent_stream.hpp"
#include "process/execution.hpp"
#include "store/crew_sessions_store.hpp"
#include "store/crews_store.hpp"

namespace agentworks::server::conversations {

using functions::Runner;

namespace {

constexpr timeval kPollPeriod{2, 0};
// The startup scan and a poll now and then find messages this process did not commit (a restart, another
// replica): every kScanEvery polls.
constexpr int kScanEvery = 5;
constexpr int kScanLimit = 100;
constexpr int kClaimPolls = 15;
constexpr std::size_t kTailLines = 10;

}  // namespace

struct CrewConversations::Turn {
  CrewConversations* owner = nullptr;
  std::string conversation_id;
  std::string token;
  std::string crew_name;
  std::string crew_dir;
  functions::FunctionDecl agent;  // the Crew's agent (runner, instructions, limits)
  std::string cli;
  std::string session;  // Claude: chosen at the claim; Codex: the thread id, once announced
  bool resume = false;
  std::string inbox_id;
  std::vector<Message> messages;
  bool nudged = false;  // R-X3: the silent turn's one question was asked (or there is nothing to ask)
  bool launched_resuming = false;  // this execution resumed the session
  bool session_lost = false;       // Claude had not kept the session a cut turn started: start it afresh once
  bool started_afresh = false;
  std::int64_t turn_from_seq = 0;  // the messages before this turn's (for a lost session's recap)
  int polls_unstarted = 0;  // a claim whose commit never came is dropped after kClaimPolls polls
  std::deque<std::string> stderr_tail;  // logged when the turn fails
  std::unique_ptr<functions::AgentStream> stream;
  std::unique_ptr<functions::Execution> execution;
  event* timer = nullptr;
  ~Turn() {
    if (timer != nullptr) event_free(timer);
  }
};

CrewConversations::CrewConversations(event_base* base, Store& store, std::function<void()> schedule_commit,
                                     functions::RunnerConfig config)
    : base_(base), store_(store), schedule_commit_(std::move(schedule_commit)), config_(std::move(config)) {
  poll_ev_ = event_new(base_, -1, EV_PERSIST, &CrewConversations::on_poll, this);
  event_add(poll_ev_, &kPollPeriod);
  cleanup_ev_ = evtimer_new(base_, &CrewConversations::on_cleanup, this);
  try {
    for (auto& id : conversations_waiting(store_, kScanLimit)) waiting_.insert(id);
  } catch (const std::exception& e) {
    spdlog::warn("crew conversations: cannot read the waiting messages yet (retrying): {}", e.what());
  }
}

CrewConversations::~CrewConversations() {
  for (auto& [id, t] : running_)
    if (t->execution) t->execution->terminate();
  running_.clear();
  if (poll_ev_ != nullptr) event_free(poll_ev_);
  if (cleanup_ev_ != nullptr) event_free(cleanup_ev_);
}

bool CrewConversations::write(const char* what, const std::function<void()>& f) {
  try {
    store_.in_request(f);
    schedule_commit_();
    return true;
  } catch (const std::exception& e) {
    spdlog::error("crew conversation: cannot store {}: {}", what, e.what());
    if (store_.in_batch()) schedule_commit_();
    return false;
  }
}

bool CrewConversations::is_crew_agent(const std::string& agent_id) {
  if (const auto it = crew_agents_.find(agent_id); it != crew_agents_.end()) return it->second;
  const auto agent = store_.agent_by_id(agent_id, true);
  const bool crew = agent && agent->crew_id.has_value();
  crew_agents_.emplace(agent_id, crew);
  return crew;
}

void CrewConversations::on_committed(const StoreEvents& events) {
  std::set<std::string> arrived;
  for (const auto& m : events.messages)
    if (m.direction == "to_agent" && m.recipient_agent_id && is_crew_agent(*m.recipient_agent_id))
      arrived.insert(m.conversation_id);
  for (const auto& [conversation_id, token] : events.turns_started) start(conversation_id, token);
  // Only what this commit brought: a conversation that waits for a slot is the poll's (a claim's own commit must
  // not claim again, or the loop would spin on a full Crew).
  for (const auto& id : arrived) {
    waiting_.insert(id);
    consider(id);
  }
}

void CrewConversations::pump() {
  const std::set<std::string> now_waiting = waiting_;
  for (const auto& id : now_waiting) consider(id);
}

// Claims the conversation's next turn when none runs and its Crew has a free slot; else it keeps waiting.
void CrewConversations::consider(const std::string& conversation_id) {
  if (running_.count(conversation_id) != 0 || claimed_.count(conversation_id) != 0) return;  // after that turn
  auto turn = std::make_unique<Turn>();
  turn->owner = this;
  turn->conversation_id = conversation_id;
  turn->token = random_hex(32);
  std::optional<Crew> crew;
  bool claimed = false;
  bool full = false;
  std::optional<Conversation> conv;
  std::shared_ptr<const functions::ParsedDeclaration> parsed;
  try {  // read first: a conversation that keeps waiting writes nothing and commits nothing
    conv = store_.conversation_by_id(conversation_id);
    const auto target = conv ? store_.agent_by_id(conv->target_agent_id) : std::nullopt;
    crew = target && target->crew_id ? crew_by_id(store_, *target->crew_id) : std::nullopt;
    if (crew) parsed = functions::parsed_declaration(*crew);
    full = crew && running_calls(store_, crew->crew_id) + running_turns(store_, crew->crew_id) >=
                       store_.limits().crew_max_running;
  } catch (const std::exception& e) {
    spdlog::warn("crew conversation {}: cannot read it (retrying): {}", conversation_id, e.what());
    return;
  }
  if (full) {  // the turn waits for a slot (R-K2); the poll considers it again
    if (parsed->declaration.agent && !crew_session(store_, conversation_id)) {
      const std::string runner = functions::runner_name(parsed->declaration.agent->runner);
      write("a waiting conversation", [&] { ensure_crew_session(store_, *conv, crew->crew_id, runner); });
    }
    return;
  }
  // Its Crew was unregistered, or crew.json no longer declares an agent: nobody runs its turns.
  if (!crew || !parsed->declaration.agent) {
    waiting_.erase(conversation_id);
    return;
  }
  const bool stored = write("a conversation turn", [&] {
    turn->agent = *parsed->declaration.agent;
    const std::optional<std::string> session =
        turn->agent.runner == Runner::claude ? std::optional<std::string>(functions::new_session_uuid())
                                             : std::nullopt;
    const auto claim = claim_turn(store_, *conv, crew->crew_id, functions::runner_name(turn->agent.runner),
                                  turn->token, session);
    if (!claim) return;
    claimed = true;
    turn->crew_name = crew->name;
    turn->crew_dir = crew->dir;
    turn->session = claim->session.session_id.value_or("");
    turn->resume = claim->resume && !turn->session.empty();
    turn->inbox_id = conv->inbox_id;
    turn->messages = claim->messages;
    turn->turn_from_seq = claim->session.turn_from_seq;
  });
  if (!stored) return;  // the poll considers it again
  waiting_.erase(conversation_id);
  if (claimed) claimed_.emplace(conversation_id, std::move(turn));
}

void CrewConversations::start(const std::string& conversation_id, const std::string& token) {
  auto it = claimed_.find(conversation_id);
  if (it == claimed_.end() || it->second->token != token) return;  // another replica's claim
  Turn& t = *it->second;
  running_.emplace(conversation_id, std::move(it->second));
  claimed_.erase(it);
  TurnPromptInput in;
  in.crew_name = t.crew_name;
  in.instructions = t.agent.agent.prompt;
  in.inbox_id = t.inbox_id;
  in.first_turn = !t.resume;
  in.messages = t.messages;
  t.timer = evtimer_new(base_, &CrewConversations::on_timeout, &t);
  const timeval tv{t.agent.timeout_seconds, 0};
  evtimer_add(t.timer, &tv);
  launch(t, turn_prompt(in));
}

void CrewConversations::launch(Turn& t, const std::string& prompt) {
  const std::string conversation_id = t.conversation_id;
  try {
    const auto cli = functions::find_agent_cli(t.agent.runner);
    if (!cli) throw std::runtime_error(functions::missing_agent_cli(t.agent.runner));
    if (config_.agentworks_cli.empty())
      throw std::runtime_error("the agentworks program (the conversation's MCP server) is not installed beside "
                               "agentworks-server; set AGENTWORKS_CLI_BIN for the server");
    functions::AgentTurn a;
    a.runner = t.agent.runner;
    a.run = &t.agent.agent;
    a.cli = *cli;
    a.agentworks_cli = config_.agentworks_cli;
    a.session = t.session;
    a.resume = t.resume;
    a.tool_timeout_seconds = t.agent.timeout_seconds;
    a.conversation = true;
    t.launched_resuming = a.resume;
    if (a.runner == Runner::codex && a.resume && a.session.empty())
      throw std::runtime_error("Codex announced no thread id to resume");
    std::vector<std::string> env;
    for (const char* name : {"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TZ", "TMPDIR"})
      if (const char* v = std::getenv(name)) env.push_back(std::string(name) + "=" + v);
    env.push_back("AGENTWORKS_SERVER=" + config_.server_url);
    env.push_back("AGENTWORKS_CONVERSATION_ID=" + t.conversation_id);
    env.push_back("AGENTWORKS_TURN_TOKEN=" + t.token);
    if (!config_.server_ca_file.empty()) env.push_back("AGENTWORKS_SERVER_CA_FILE=" + config_.server_ca_file);
    functions::ExecutionSpec spec;
    spec.keeper = config_.keeper;
    spec.cwd = t.crew_dir;
    spec.command = functions::agent_argv(a);
    spec.env = functions::agent_environment(a, std::move(env));
    spec.stdin_bytes = prompt;
    t.stream = functions::make_agent_stream(t.agent.runner);
    t.execution = std::make_unique<functions::Execution>(
        base_, spec,
        [&t](const std::string& line) {
          t.stderr_tail.push_back(line);
          if (t.stderr_tail.size() > kTailLines) t.stderr_tail.pop_front();
        },
        [this, conversation_id](const functions::ExecutionEnd& end) {
          // Only a turn that ended as it should is asked about its silence; a failure ends as it is.
          if (end.kind != functions::ExecutionEnd::Kind::exited || end.code != 0) {
            if (const auto it = running_.find(conversation_id); it != running_.end()) {
              Turn& ended = *it->second;
              ended.nudged = true;
              std::string tail;
              for (const auto& line : ended.stderr_tail) {
                tail += "\n  " + line;
                // A crash cut the session's first turn before Claude wrote it down: nothing to resume.
                if (ended.agent.runner == Runner::claude && ended.launched_resuming && !ended.started_afresh &&
                    line.find("No conversation found with session ID") != std::string::npos)
                  ended.session_lost = true;
              }
              spdlog::warn("crew conversation {}: the agent's turn ended with {} {}{}", conversation_id,
                           end.kind == functions::ExecutionEnd::Kind::exited ? "exit" : "signal", end.code, tail);
            }
          }
          on_end(conversation_id);
        },
        [this, &t](const std::string& line) {
          const functions::AgentLine read = t.stream->read(line);
          if (read.session_id && t.agent.runner == Runner::codex && t.session != *read.session_id) {
            t.session = *read.session_id;
            const std::string id = t.conversation_id;
            const std::string session = t.session;
            write("the agent's thread", [&] { set_turn_session(store_, id, session); });
          }
        });
    // After the first turn of this session, the nudge and later turns resume it.
    t.resume = true;
  } catch (const std::exception& e) {
    spdlog::error("crew conversation {}: the agent's turn could not start: {}", conversation_id, e.what());
    t.nudged = true;  // nothing to ask: the turn ends as it is
    finish(conversation_id);
  }
}

CrewConversations::Turn& CrewConversations::relaunch(Turn& t) {
  const auto it = running_.find(t.conversation_id);
  retired_.push_back(nullptr);
  retired_.back().swap(it->second);  // keep nothing of the old execution alive in its own callback
  auto next = std::make_unique<Turn>();
  next->owner = this;
  next->conversation_id = t.conversation_id;
  next->token = t.token;
  next->crew_name = t.crew_name;
  next->crew_dir = t.crew_dir;
  next->agent = t.agent;
  next->session = t.session;
  next->resume = true;
  next->inbox_id = t.inbox_id;
  next->messages = t.messages;
  next->turn_from_seq = t.turn_from_seq;
  next->nudged = t.nudged;
  next->started_afresh = t.started_afresh;
  Turn& n = *next;
  n.timer = evtimer_new(base_, &CrewConversations::on_timeout, &n);
  const timeval tv{n.agent.timeout_seconds, 0};
  evtimer_add(n.timer, &tv);
  running_[t.conversation_id] = std::move(next);
  event_active(cleanup_ev_, EV_TIMEOUT, 0);
  return n;
}

void CrewConversations::on_end(const std::string& conversation_id) {
  const auto it = running_.find(conversation_id);
  if (it == running_.end()) return;
  Turn& t = *it->second;
  if (t.session_lost) {
    // The same session id, new: the instructions, a recap of what came before, and this turn's messages.
    TurnPromptInput in;
    in.crew_name = t.crew_name;
    in.instructions = t.agent.agent.prompt;
    in.inbox_id = t.inbox_id;
    in.first_turn = true;
    in.messages = t.messages;
    try {
      in.earlier = store_.turn_messages(conversation_id, 0, t.turn_from_seq);
    } catch (const std::exception& e) {
      spdlog::warn("crew conversation {}: no recap of the earlier messages: {}", conversation_id, e.what());
    }
    t.nudged = false;
    t.started_afresh = true;
    Turn& n = relaunch(t);
    n.resume = false;
    spdlog::warn("crew conversation {}: its session was lost in a crash; starting it afresh", conversation_id);
    launch(n, turn_prompt(in));
    return;
  }
  if (!t.nudged) {
    std::optional<CrewSession> session;
    try {
      session = crew_session(store_, conversation_id);
    } catch (const std::exception& e) {
      spdlog::warn("crew conversation {}: cannot read the turn: {}", conversation_id, e.what());
    }
    if (session && session->running && !session->spoke) {
      t.nudged = true;  // R-X3: asked once, in the same session
      Turn& n = relaunch(t);
      launch(n, silent_turn_question(n.inbox_id));
      return;
    }
  }
  finish(conversation_id);
}

void CrewConversations::finish(const std::string& conversation_id) {
  const auto it = running_.find(conversation_id);
  if (it == running_.end()) return;
  const std::string hash = sha256_hex(it->second->token);
  if (!write("the end of a conversation turn", [&] { end_turn(store_, conversation_id, hash); })) {
    unended_.insert(conversation_id);
    return;
  }
  unended_.erase(conversation_id);
  retired_.push_back(std::move(it->second));
  running_.erase(it);
  event_active(cleanup_ev_, EV_TIMEOUT, 0);
  waiting_.insert(conversation_id);  // messages that came during the turn go to the next one
  consider(conversation_id);
}

void CrewConversations::on_poll(int, short, void* arg) {
  auto* self = static_cast<CrewConversations*>(arg);
  for (const auto& id : std::set<std::string>(self->unended_)) self->finish(id);
  for (auto it = self->claimed_.begin(); it != self->claimed_.end();) {
    // Its commit failed (rolled back): nothing holds the turn, so the conversation is considered again.
    if (++it->second->polls_unstarted > kClaimPolls) {
      self->waiting_.insert(it->first);
      it = self->claimed_.erase(it);
    } else {
      ++it;
    }
  }
  if (++self->polls_ % kScanEvery == 0) {
    try {
      for (auto& id : conversations_waiting(self->store_, kScanLimit)) self->waiting_.insert(id);
    } catch (const std::exception& e) {
      spdlog::warn("crew conversations: cannot read the waiting messages (retrying): {}", e.what());
    }
  }
  if (!self->waiting_.empty()) self->pump();
}

void CrewConversations::on_timeout(int, short, void* arg) {
  auto* t = static_cast<Turn*>(arg);
  spdlog::warn("crew conversation {}: the turn ran past {} s; ending it", t->conversation_id, t->agent.timeout_seconds);
  t->nudged = true;
  if (t->execution) t->execution->terminate();
}

void CrewConversations::on_cleanup(int, short, void* arg) { static_cast<CrewConversations*>(arg)->retired_.clear(); }

}  // namespace agentworks::server::conversations
