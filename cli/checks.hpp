// Cheap client-side checks that mirror the server's rules and codes (the server stays the authority).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace agentworks::cli {

void check_agent_name(std::string_view name);          // Error(invalid_name)
void check_crew_name(std::string_view name);           // Error(invalid_name): Crews follow the agent-name rules
void check_message_text(std::string_view text);        // Error(invalid_message)
// `--agent NAME` of the person's views of an agent (state, wakeups), where crew:NAME names a Crew's own agent
// (R-K1): the name checked, as the URL path segment of /v1/agents/{name}.
std::string agent_path_segment(std::string_view agent);

// The target of a send (`--target`, the `target` of the full connection's messages_send): NAME means agent:NAME;
// agent:NAME and crew:NAME (a Crew's own agent, R-K1) get their name checked; another scheme goes to the server as
// given, which judges it.
std::string message_target(std::string_view target);
void check_range(std::string_view option, int value, int low, int high);  // Error(bad_request)

// --project DIR (default: the current directory) as an existing directory's canonical path, else Error(usage).
std::filesystem::path project_directory(const std::string& option);

// All of stdin (empty when it is closed or a terminal sends EOF).
std::string read_all_stdin();

// `--message -` reads stdin to the end; one trailing newline (from echo or a heredoc) is dropped.
std::string message_argument(const std::string& value);

}  // namespace agentworks::cli
