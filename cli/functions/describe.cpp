#include "functions/describe.hpp"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "functions/routes.hpp"
#include "output.hpp"

namespace agentworks::cli::functions {
using nlohmann::json;
namespace {

std::string number_or(const json& j, const char* key, const std::string& fallback = "-") {
  const auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? std::to_string(it->get<long long>()) : fallback;
}

// Multi-line text indented under its heading, so it cannot be read as one of the lines around it.
void indented(std::ostringstream& out, const std::string& text) {
  out << "  ";
  for (std::size_t i = 0; i < text.size(); ++i) {
    out << text[i];
    if (text[i] == '\n' && i + 1 < text.size()) out << "  ";
  }
  if (text.empty() || text.back() != '\n') out << "\n";
}

// The first line of `text`, at most `limit` bytes (cut at a UTF-8 boundary, then "...").
std::string instructions_headline(const std::string& text, std::size_t limit) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.size() <= limit) return line;
  std::size_t cut = limit;
  while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;
  return line.substr(0, cut) + "...";
}

// The Crew's agent (R-K1): which CLI runs it and what its instructions begin with.
void describe_agent(std::ostringstream& out, const json& crew) {
  const auto agent = crew.find("agent");
  if (agent == crew.end()) return;  // a server without Crew agents
  if (!agent->is_object()) {
    out << "  agent: none (declare one in .agentworks/crew.json to be talked to)\n";
    return;
  }
  const std::string instructions = instructions_headline(text_or(*agent, "instructions", ""), 100);
  out << "  agent: " << text_or(*agent, "runner") << ": " << (instructions.empty() ? "(no instructions)" : instructions)
      << "\n";
  out << "  messaging: " << describe_messaging(crew) << "\n";
}

}  // namespace

std::string describe_messaging(const json& crew) {
  const auto on = crew.find("messaging");
  const std::string state = on == crew.end() || !on->is_boolean() ? "?" : on->get<bool>() ? "on" : "off";
  if (text_or(crew, "messaging_source", "file") == "server")
    return state + " (set on the server; --messaging file returns to .agentworks/crew.json)";
  return state + " (from .agentworks/crew.json)";
}

std::string describe_conversations(const json& crew) {
  const json conversations = crew.value("conversations", json::array());
  std::ostringstream out;
  out << "  conversations (" << conversations.size() << ", newest first):";
  if (conversations.empty()) {
    out << " none yet; start one with: agentworks crews ask " << text_or(crew, "crew_name", "NAME")
        << " --message TEXT\n";
    return out.str();
  }
  out << "\n";
  std::vector<std::array<std::string, 6>> rows = {{"INBOX", "INITIATOR", "TURN", "TURNS", "LAST TURN", "WAITING"}};
  for (const json& c : conversations) {
    const std::string agent = text_or(c.value("initiator", json::object()), "agent_name", "");
    rows.push_back({text_or(c, "inbox_id"), agent.empty() ? std::string("you") : "agent:" + agent,
                    text_or(c, "turn"), number_or(c, "turns"), format_time(c.value("last_turn_at", json())),
                    number_or(c, "waiting")});
  }
  std::array<std::size_t, 6> width{};
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  for (const auto& row : rows) {
    std::string line = "   ";
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += " " + row[i];
      if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 1, ' ');
    }
    out << line << "\n";
  }
  return out.str();
}

std::string describe_crew(const json& crew) {
  std::ostringstream out;
  out << "crew " << text_or(crew, "crew_name") << " (" << text_or(crew, "crew_id") << ")\n";
  // R-R1: served from a computer: which, whether its runner is there, since when, and what waits for it.
  if (const auto served = crew.find("served"); served != crew.end() && served->is_object()) {
    const bool online = served->value("online", false);
    out << "  served from: " << text_or(*served, "host") << ", "
        << (!served->value("serving", true) ? "serving stopped"
            : online                         ? "online"
                                             : "offline (its bridge or `agentworks crews serve` must run there)")
        << " since " << format_time(served->value("since", json())) << "; "
        << number_or(*served, "waiting_calls") << " call(s) waiting for it\n"
        << "  folder (on " << text_or(*served, "host") << "): " << text_or(crew, "dir") << "\n";
  } else {
    out << "  folder: " << text_or(crew, "dir") << "\n";
  }
  out
      << "  running calls: " << number_or(crew, "running") << " of " << number_or(crew, "max_running") << "\n"
      << "  reloaded: " << format_time(crew.value("reloaded_at", json())) << "\n";
  if (const auto allow = crew.find("allow"); allow != crew.end() && allow->is_object()) {
    std::string tools;
    for (const json& t : allow->value("claude_tools", json::array()))
      if (t.is_string()) tools += (tools.empty() ? "" : ", ") + t.get<std::string>();
    out << "  agents may use: claude tools " << (tools.empty() ? "none" : tools) << "; codex sandbox "
        << text_or(*allow, "codex_sandbox") << "\n";
  }
  const json functions = crew.value("functions", json::array());
  out << "  functions (" << functions.size() << "):";
  if (functions.empty()) out << " none declared in .agentworks/functions.json";
  out << "\n";
  for (const json& f : functions) {
    out << "    " << text_or(f, "name") << "  " << text_or(f, "description", "") << "\n";
  }
  describe_agent(out, crew);
  // What register and reload found to fix (an agent CLI the server cannot find).
  for (const json& w : crew.value("warnings", json::array()))
    if (w.is_string()) out << "  warning: " << w.get<std::string>() << "\n";
  return out.str();
}

std::string describe_crews(const json& list) {
  std::ostringstream out;
  const json crews = list.value("crews", json::array());
  if (crews.empty()) out << "no crews; register one with: agentworks crews register NAME --dir PATH\n";
  for (const json& c : crews) {
    out << text_or(c, "crew_name") << "  " << text_or(c, "crew_id") << "  " << text_or(c, "dir") << "  "
        << c.value("functions", json::array()).size() << " functions, " << number_or(c, "running") << " running\n";
  }
  return out.str();
}

std::string describe_functions(const json& list) {
  std::ostringstream out;
  const json functions = list.value("functions", json::array());
  out << "crew " << text_or(list, "crew_name") << " (" << text_or(list, "crew_id") << "): " << functions.size()
      << " functions you may call\n";
  for (const json& f : functions) {
    out << "  " << text_or(f, "name") << "  " << text_or(f, "description", "") << "\n";
    const json inputs = f.value("inputs", json::object());
    if (inputs.is_object() && inputs.contains("properties") && inputs["properties"].is_object()) {
      const json required = inputs.value("required", json::array());
      out << "    inputs:";
      for (const auto& [name, schema] : inputs["properties"].items()) {
        const bool is_required = std::find(required.begin(), required.end(), json(name)) != required.end();
        out << " " << name << (is_required ? "" : "?");
        if (schema.is_object() && schema.contains("type") && schema["type"].is_string()) {
          out << ":" << schema["type"].get<std::string>();
        }
      }
      out << "\n";
    }
    if (f.contains("output_schema") && !f["output_schema"].is_null())
      out << "    returns a result checked by its output schema\n";
    if (const std::string runner = text_or(f, "runner", "command"); runner != "command")
      out << "    done by a fresh " << (runner == "claude" ? "Claude Code" : "Codex") << " session\n";
  }
  return out.str();
}

std::string describe_call_list(const json& list) {
  std::ostringstream out;
  const json calls = list.value("calls", json::array());
  if (calls.empty()) out << "no calls\n";
  for (const json& c : calls) {
    const json caller = c.value("caller", json::object());
    out << text_or(c, "call_id") << "  " << text_or(c, "crew_name") << "/" << text_or(c, "function") << "  "
        << text_or(c, "status") << "  started " << format_time(c.value("created_at", json()));
    if (c.contains("finished_at") && !c["finished_at"].is_null())
      out << ", finished " << format_time(c["finished_at"]);
    // As the status page says it: a chat's agent by name, else the person (any connection of this account).
    const std::string agent = text_or(caller, "agent_name", "");
    // A Crew's own agent is already named as such (crew:NAME, R-K2).
    const bool crew_agent = agent.rfind("crew:", 0) == 0;
    out << "  by " << (agent.empty() ? std::string("you") : crew_agent ? agent : "agent:" + agent) << "\n";
  }
  if (const auto next = list.find("next_cursor"); next != list.end() && next->is_string())
    out << "older calls: agentworks functions calls --before " << next->get<std::string>() << "\n";
  return out.str();
}

std::string describe_call(const json& call, Surface surface) {
  const bool cli = surface == Surface::cli;
  std::ostringstream out;
  const std::string status = text_or(call, "status", "?");
  const std::string id = text_or(call, "call_id");
  out << "call " << id << ": " << text_or(call, "function") << " on " << text_or(call, "crew_name") << ", status "
      << status << (is_terminal(status) ? " (finished)" : " (not finished)") << "\n";
  if (const std::string progress = text_or(call, "progress", ""); !progress.empty()) {
    out << "progress: " << progress << "\n";
  }
  if (const auto it = call.find("agent"); it != call.end() && it->is_object()) {
    // The session a person can open to read what the agent did (claude --resume ID, codex resume ID).
    out << "agent: " << text_or(*it, "cli") << " " << text_or(*it, "version", "(version unknown)") << ", session "
        << text_or(*it, "session_id", "(not started)") << "\n";
  }
  for (const json& q : call.value("pending_inputs", json::array())) {
    const std::string request = text_or(q, "request_id");
    out << "question " << request << ": " << text_or(q, "question", "") << "\n";
    if (const auto schema = q.find("schema"); schema != q.end() && schema->is_object()) {
      out << "  the answer must be JSON valid against: " << schema->dump() << "\n";
    }
    out << "  answer with: ";
    if (cli) {
      out << "agentworks functions reply --call " << id << " --request " << request << " --answer TEXT\n";
    } else if (surface == Surface::chat) {
      out << "reply_function_call(call_id=\"" << id << "\", request_id=\"" << request << "\", answer=TEXT)\n";
    } else {
      out << "functions_reply call_id=" << id << " request_id=" << request << " answer=TEXT\n";
    }
  }
  if (const auto it = call.find("error"); it != call.end() && it->is_object()) {
    out << "error: " << text_or(*it, "code") << ": " << text_or(*it, "message", "") << "\n";
  }
  if (const auto it = call.find("result"); it != call.end() && !it->is_null()) {
    out << "result: " << it->dump() << "\n";
  }
  if (const std::string file = text_or(call, "result_file", ""); !file.empty()) {
    out << "result (too large to show): file " << file << "; read it with: "
        << (cli                         ? "agentworks functions call-file --call " + id + " --file " + file
            : surface == Surface::chat ? "agentworks functions call-file --call " + id + " --file " + file +
                                             " (ask the person: files are read from a terminal)"
                                       : "functions_read call_id=" + id + " file=" + file)
        << "\n";
  }
  if (const auto it = call.find("answer"); it != call.end() && it->is_string()) {
    out << "answer:\n";
    indented(out, it->get<std::string>());
  }
  const json files = call.value("files", json::array());
  if (call.value("files_expired", false)) {
    out << "files: expired (removed by cleanup)\n";
  } else if (!files.empty()) {
    out << "files:";
    for (const json& f : files) {
      out << " " << text_or(f, "name") << " (" << number_or(f, "size") << " bytes, " << text_or(f, "kind") << ")";
    }
    out << "\n";
  } else if (is_terminal(status)) {
    out << "files: none\n";
  }
  const json messages = call.value("messages", json::array());
  if (!messages.empty()) {
    out << "messages:\n";
    for (const json& m : messages) {
      out << "  [" << number_or(m, "seq") << "] " << text_or(m, "kind", "") << ": " << text_or(m, "text", "") << "\n";
    }
  }
  if (!is_terminal(status)) {
    const std::string after = number_or(call, "next_after", "-1");
    const std::string after_event = number_or(call, "next_after_event", "-1");
    out << "not an outcome yet (only " << kOutcomeStatuses << " is); poll with: ";
    if (cli) {
      out << "agentworks functions call-status --call " << id << " --after " << after << " --after-event "
          << after_event << " --wait 25\n";
    } else if (surface == Surface::chat) {
      const bool noticed = call.contains("notify") && call["notify"].is_string();
      out << "get_function_call(call_id=\"" << id << "\", after=" << after << ", after_event=" << after_event << ")"
          << (noticed ? "; or go on with other work: its questions and outcome come to this chat as messages" : "")
          << "\n";
    } else {
      out << "functions_status call_id=" << id << " after=" << after << " after_event=" << after_event
          << " wait_seconds=25\n";
    }
  }
  return out.str();
}

std::string describe_cancel(const json& call, Surface surface) {
  const std::string what = text_or(call, "cancel", "");
  std::string head;
  if (what == "requested") {
    head = "cancel requested: the call's processes are being killed; it ends cancelled once they are gone\n";
  } else if (what == "cancelled") {
    head = "cancelled\n";
  } else {
    head = "not cancelled: the call had already ended (" + text_or(call, "status", "?") + ")\n";
  }
  return head + describe_call(call, surface);
}

}  // namespace agentworks::cli::functions
