// Short readable text for the Crew and function objects, shared by the commands' human output and the text
// content of the `mcp serve --full` tools. A Call that is not terminal always says so and how to keep polling:
// progress, silence or a pending question is not an outcome.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace agentworks::cli::functions {

// One Crew: name, id, folder, running/max, its functions, and (from a server that has them, R-K1) its agent and
// whether its messaging is on.
std::string describe_crew(const nlohmann::json& crew);
// The Crew's messaging switch in force and where it comes from: "on (from .agentworks/crew.json)".
std::string describe_messaging(const nlohmann::json& crew);
// The Crew's conversations with its agent (R-K2), newest first, as a table: inbox, initiator, turn, turns, last
// turn, waiting messages.
std::string describe_conversations(const nlohmann::json& crew);
// {"crews":[…]}: one line each.
std::string describe_crews(const nlohmann::json& list);
// {"crew_id","crew_name","functions"}: name, description and the inputs' properties of each function.
std::string describe_functions(const nlohmann::json& list);
// {"calls":[CallSummary…],"next_cursor"}: one line per call, newest first, and how to read the older ones.
std::string describe_call_list(const nlohmann::json& list);
// Who reads the text: the next steps it names are CLI commands or `functions` tool actions.
// cli: `agentworks functions …` commands; mcp: the full connection's `functions` tool; chat: an attached chat's
// function tools (get_function_call, reply_function_call, R-D1).
enum class Surface { cli, mcp, chat };

// A Call: status, progress, answer/result/error, pending questions with their request ids, files, messages, and
// (when not terminal) how to keep polling.
std::string describe_call(const nlohmann::json& call, Surface surface = Surface::cli);
// A cancel's answer (the Call with `cancel`: requested, cancelled or already_ended): what happened, then the call.
std::string describe_cancel(const nlohmann::json& call, Surface surface = Surface::cli);

}  // namespace agentworks::cli::functions
