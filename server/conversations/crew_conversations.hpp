// Runs the turns of conversations with a Crew's own agent (R-K2). A message to a Crew's agent, once committed,
// makes its conversation wait for a turn; a turn is claimed in the store (its messages, a per-turn secret) when
// none runs for that conversation and the Crew has a free running slot, and starts after the commit that holds
// the claim: a headless `claude -p` / `codex exec` in the Crew's folder, resuming the conversation's own session
// after its first turn, whose MCP server is `agentworks mcp serve --conversation`. Messages that arrive during a
// turn wait for the next one; a full Crew delays a turn, never refuses a message (the messages are durable, and a
// restart finds them waiting). A turn that ends without a word is asked once (R-X3), then its messages read
// `unanswered`.
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>

#include "runner/call_runner.hpp"
#include "store/store.hpp"

struct event;
struct event_base;

namespace agentworks::server::conversations {

class CrewConversations {
 public:
  CrewConversations(event_base* base, Store& store, std::function<void()> schedule_commit,
                    functions::RunnerConfig config);
  ~CrewConversations();  // ends every running turn's tree; the next start reads their messages interrupted
  CrewConversations(const CrewConversations&) = delete;
  CrewConversations& operator=(const CrewConversations&) = delete;

  // After every successful group commit.
  void on_committed(const StoreEvents& events);
  std::size_t running() const { return running_.size(); }

  struct Turn;

 private:
  void pump();
  void consider(const std::string& conversation_id);
  void start(const std::string& conversation_id, const std::string& token);
  void launch(Turn& t, const std::string& prompt);
  void on_end(const std::string& conversation_id);
  // The turn's next execution in the same slot (the silent turn's question, a lost session started afresh).
  Turn& relaunch(Turn& t);
  void finish(const std::string& conversation_id);
  bool write(const char* what, const std::function<void()>& f);
  bool is_crew_agent(const std::string& agent_id);
  static void on_poll(int fd, short what, void* arg);
  static void on_timeout(int fd, short what, void* arg);
  static void on_cleanup(int fd, short what, void* arg);

  event_base* base_;
  Store& store_;
  std::function<void()> schedule_commit_;
  functions::RunnerConfig config_;
  std::set<std::string> waiting_;  // conversations whose messages wait for a turn (the store holds them too)
  std::unordered_map<std::string, std::unique_ptr<Turn>> claimed_;  // claims not yet committed
  std::unordered_map<std::string, std::unique_ptr<Turn>> running_;
  std::set<std::string> unended_;  // turns whose end could not be stored yet: retried by the poll
  std::unordered_map<std::string, bool> crew_agents_;  // agent id -> whether it is a Crew's hidden agent
  std::vector<std::unique_ptr<Turn>> retired_;        // ended turns, freed outside their callbacks
  event* poll_ev_ = nullptr;
  event* cleanup_ev_ = nullptr;
  int polls_ = 0;
};

}  // namespace agentworks::server::conversations
