// Plain rows of Crews and function calls (store/crews_store.hpp, store/calls_store.hpp). No JSON here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "store/states.hpp"

namespace agentworks::server {

struct Crew {
  std::string crew_id;
  std::string account_id;
  std::string name;
  std::string dir;               // canonical absolute path on the server's computer
  std::string declaration_json;  // functions::declaration_to_json form
  std::string allowance_json;    // what its agent functions may use: functions::allowance_to_json form ("" default)
  std::int64_t created_at = 0;
  std::int64_t reloaded_at = 0;
  std::int64_t last_sweep_at = 0;
  std::optional<bool> messaging_set;  // R-K3: the person's switch; unset: crew.json's value (declaration_json)
  // R-R1: a Crew served from its owner's computer by that computer's bridge (its runner); `dir` is the folder there.
  std::optional<std::string> runner_host;  // the serving computer's name; unset: the server runs its calls itself
  std::optional<std::string> runner_conn;  // the runner's connection (its `serve` scope); unset: serving stopped
  std::int64_t runner_since = 0;           // when serving started (or stopped)
  std::int64_t runner_seen_at = 0;         // the runner's last request; 0: never
  bool served() const { return runner_host.has_value(); }
};

struct CallRow {
  std::string call_id;
  std::string crew_id;
  std::string crew_name;
  std::string crew_dir;
  std::string crew_account;
  std::string caller_account;
  std::string caller_conn;
  std::string function;
  std::string arguments_json;
  std::optional<std::string> submission_id;
  std::string fingerprint;
  CallStatus status = CallStatus::running;
  std::string progress;
  std::optional<std::string> answer;
  std::optional<std::string> result_json;
  std::optional<std::string> result_file;
  std::optional<std::string> error_code;
  std::optional<std::string> error_message;
  std::string token_hash;
  bool correction = false;
  std::int64_t created_at = 0;
  std::int64_t updated_at = 0;
  std::optional<std::int64_t> finished_at;
  std::int64_t next_message = 0;
  std::int64_t dropped_messages = 0;
  std::int64_t next_event = 0;
  bool files_expired = false;
  std::optional<std::string> agent_cli;      // agent runners: "claude" or "codex"
  std::optional<std::string> agent_session;  // its session (Claude) or thread (Codex) id
  std::optional<std::string> agent_version;
  std::optional<std::int64_t> cancel_requested_at;  // asked to end (R-D3): it ends `cancelled` once its tree is gone
  std::optional<std::string> caller_agent_id;    // a chat's call (R-D1): the agent it was made as
  std::optional<std::string> caller_agent_name;
  std::optional<std::string> notify_agent_id;    // who is told of its questions and outcome (R-D2)
  std::optional<std::string> notify_agent_name;
  std::optional<std::string> notify_conversation_id;  // a Crew agent's call (R-K2): its notices go into it
  std::optional<std::string> parent_call_id;  // made by that call's execution (R-D4)
  std::int64_t depth = 1;                     // 1 for a call from a person or a chat
  // R-R1: a call of a served Crew: "" until its runner claims it, then the runner's connection.
  std::optional<std::string> served_by;
  std::optional<std::string> declaration_hash;  // the declaration it was admitted under (R-R2)
  bool open() const { return is_open(status); }
};

// A call as the recent-calls list shows it (store/call_list_store.hpp): no arguments, outputs or messages.
struct CallSummary {
  std::int64_t list_key = 0;  // the list's order: larger is newer (a page cursor names it)
  std::string call_id;
  std::string crew_id;
  std::string crew_name;
  std::string function;
  CallStatus status = CallStatus::running;
  std::string progress;
  std::string caller_account;
  std::string caller_conn;
  std::optional<std::string> caller_agent_name;  // a child connection's agent; none for a login connection
  std::optional<std::string> submission_id;
  std::optional<std::string> error_code;
  std::optional<std::string> error_message;
  std::int64_t created_at = 0;
  std::int64_t updated_at = 0;
  std::optional<std::int64_t> finished_at;
};

struct CallMessage {
  std::int64_t seq = 0;
  std::string kind;  // "progress", "dropped"
  std::string text;
  std::int64_t created_at = 0;
};

struct CallEvent {
  std::int64_t seq = 0;
  std::string type;
  std::string detail;
  std::int64_t created_at = 0;
};

struct CallInput {
  std::string request_id;
  std::string call_id;
  std::string question;
  std::optional<std::string> answer;
  std::int64_t asked_at = 0;
  std::optional<std::int64_t> answered_at;
  std::optional<std::string> schema_json;  // a JSON Schema the answer must satisfy (JSON text)
  bool withdrawn = false;                   // the call was cancelled before an answer came (R-D3)
};

}  // namespace agentworks::server
