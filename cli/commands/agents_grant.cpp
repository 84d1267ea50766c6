// agentworks agents grant NAME --functions CREW[,CREW...]|all: the person lets the chat attached as NAME list,
// call, read, answer and cancel the functions of those Crews through its own messaging connection (R-D1). Only a
// login connection may grant (never the chat's own connection); the grant replaces the last one. `agents set NAME
// --communication explicit|direct --nudge on|off` chooses how the chat talks (R-X1) and whether its silent turns
// are asked once to answer (R-X3); `agents show` shows all of it.
#include <iostream>
#include <nlohmann/json.hpp>

#include "agentworks/error.hpp"
#include "agentworks/server_client.hpp"
#include "checks.hpp"
#include "command.hpp"
#include "output.hpp"
#include "session.hpp"

namespace agentworks::cli {
using nlohmann::json;
namespace {

// The grant as the person reads it: "all Crews", the list, or "no functions".
std::string grant_words(const json& agent) {
  const auto it = agent.find("functions");
  if (it == agent.end()) return "no functions";
  if (it->is_string() && it->get<std::string>() == "all") return "the functions of every Crew the account may call";
  if (!it->is_array() || it->empty()) return "no functions";
  std::string out = "the functions of ";
  for (std::size_t i = 0; i < it->size(); ++i) out += (i == 0 ? "" : ", ") + (*it)[i].get<std::string>();
  return out;
}

class AgentsGrant final : public Command {
 public:
  void define(Options& options) override {
    options.option("name", agent_, "The agent (its chat is attached under this name)").required();
    options.option("--functions", functions_, "Crew names, comma-separated, or all").required();
  }

  json run(const Context& ctx) override {
    check_agent_name(agent_);
    json list = json::array();
    if (functions_ == "all") {
      list = "all";
    } else {
      std::size_t start = 0;
      while (start <= functions_.size()) {
        const std::size_t end = std::min(functions_.find(',', start), functions_.size());
        std::string crew = functions_.substr(start, end - start);
        crew.erase(0, crew.find_first_not_of(' '));
        crew.erase(crew.find_last_not_of(' ') + 1);
        if (crew.empty())
          throw Error(ErrorCode::usage, "--functions lists Crew names separated by commas (or is all); an entry is empty");
        list.push_back(crew);
        start = end + 1;
      }
    }
    Config config = require_login(ctx);
    return client_for(config).post("/v1/agents/" + url_encode(agent_) + "/functions", json{{"functions", list}});
  }

  void print(const json& agent) const override {
    std::cout << "agent:" << text_or(agent, "agent_name", agent_) << " may now use " << grant_words(agent)
              << " from its chat\n";
  }

 private:
  std::string agent_;
  std::string functions_;
};

class AgentsRevoke final : public Command {
 public:
  void define(Options& options) override {
    options.option("name", agent_, "The agent").required();
    options.flag("--functions", functions_, "Take back its grant of functions (the only grant there is)");
  }

  json run(const Context& ctx) override {
    check_agent_name(agent_);
    if (!functions_) throw Error(ErrorCode::usage, "say what to take back: agentworks agents revoke NAME --functions");
    Config config = require_login(ctx);
    return client_for(config).del("/v1/agents/" + url_encode(agent_) + "/functions");
  }

  void print(const json& agent) const override {
    std::cout << "agent:" << text_or(agent, "agent_name", agent_) << " may use no functions from its chat\n";
  }

 private:
  std::string agent_;
  bool functions_ = false;
};

class AgentsShow final : public Command {
 public:
  void define(Options& options) override { options.option("name", agent_, "The agent").required(); }

  json run(const Context& ctx) override {
    check_agent_name(agent_);
    Config config = require_login(ctx);
    return client_for(config).get("/v1/agents/" + url_encode(agent_));
  }

  void print(const json& agent) const override {
    std::cout << "agent:" << text_or(agent, "agent_name", agent_) << " (" << text_or(agent, "agent_id") << ")"
              << (agent.value("connected", false) ? ", connected" : "") << "\n"
              << "functions from its chat: " << grant_words(agent) << "\n"
              << "communication: " << text_or(agent, "communication", "explicit") << "\n"
              << "nudge: " << text_or(agent, "nudge", "on") << "\n";
  }

 private:
  std::string agent_;
};

class AgentsSet final : public Command {
 public:
  void define(Options& options) override {
    options.option("name", agent_, "The agent").required();
    options
        .option("--communication", communication_,
                "explicit: only the message tools speak (the default); direct: the final text of a turn that took "
                "messages from one conversation is sent as the reply")
        .one_of({"explicit", "direct"});
    options
        .option("--nudge", nudge_,
                "on (the default): a turn that took messages and ends without answering them is asked once; off: "
                "they read unanswered at once (the sender's status line stays)")
        .one_of({"on", "off"});
  }

  json run(const Context& ctx) override {
    check_agent_name(agent_);
    if (!communication_ && !nudge_)
      throw Error(ErrorCode::usage, "give --communication explicit|direct, --nudge on|off, or both");
    Config config = require_login(ctx);
    json body = json::object();
    if (communication_) body["communication"] = *communication_;
    if (nudge_) body["nudge"] = *nudge_;
    return client_for(config).post("/v1/agents/" + url_encode(agent_) + "/communication", body);
  }

  void print(const json& agent) const override {
    std::cout << "agent:" << text_or(agent, "agent_name", agent_) << " talks "
              << text_or(agent, "communication", "explicit") << "ly; silent turns "
              << (text_or(agent, "nudge", "on") == "on" ? "are asked once to answer" : "are not nudged") << "\n";
  }

 private:
  std::string agent_;
  std::optional<std::string> communication_;
  std::optional<std::string> nudge_;
};

}  // namespace

std::unique_ptr<Command> make_agents_grant() { return std::make_unique<AgentsGrant>(); }
std::unique_ptr<Command> make_agents_revoke() { return std::make_unique<AgentsRevoke>(); }
std::unique_ptr<Command> make_agents_show() { return std::make_unique<AgentsShow>(); }
std::unique_ptr<Command> make_agents_set() { return std::make_unique<AgentsSet>(); }

}  // namespace agentworks::cli
