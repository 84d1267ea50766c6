// The one command table: every subcommand of `agentworks`, in help order.
#include "command.hpp"

#include <array>

namespace agentworks::cli {

std::unique_ptr<Command> make_up();
std::unique_ptr<Command> make_down();
std::unique_ptr<Command> make_status();
std::unique_ptr<Command> make_ui();
std::unique_ptr<Command> make_doctor();
std::unique_ptr<Command> make_daemon_start();
std::unique_ptr<Command> make_daemon_stop();
std::unique_ptr<Command> make_daemon_status();
std::unique_ptr<Command> make_daemon_logs();
std::unique_ptr<Command> make_login();
std::unique_ptr<Command> make_logout();
std::unique_ptr<Command> make_guidance_context();
std::unique_ptr<Command> make_messages_register();
std::unique_ptr<Command> make_messages_list();
std::unique_ptr<Command> make_messages_send();
std::unique_ptr<Command> make_messages_read();
std::unique_ptr<Command> make_messages_receipt();
std::unique_ptr<Command> make_messages_inbox();
std::unique_ptr<Command> make_messages_unregister();
std::unique_ptr<Command> make_agents_grant();
std::unique_ptr<Command> make_agents_revoke();
std::unique_ptr<Command> make_messages_state();
std::unique_ptr<Command> make_agents_set();
std::unique_ptr<Command> make_wakeups_schedule();
std::unique_ptr<Command> make_wakeups_list();
std::unique_ptr<Command> make_wakeups_cancel();
std::unique_ptr<Command> make_wakeups_pause();
std::unique_ptr<Command> make_wakeups_resume();
std::unique_ptr<Command> make_agents_show();
std::unique_ptr<Command> make_crews_register();
std::unique_ptr<Command> make_crews_serve();
std::unique_ptr<Command> make_crews_stop_serving();
std::unique_ptr<Command> make_crews_list();
std::unique_ptr<Command> make_crews_show();
std::unique_ptr<Command> make_crews_unregister();
std::unique_ptr<Command> make_crews_reload();
std::unique_ptr<Command> make_crews_allow();
std::unique_ptr<Command> make_crews_set();
std::unique_ptr<Command> make_crews_ask();
std::unique_ptr<Command> make_crews_call();
std::unique_ptr<Command> make_crews_call_status();
std::unique_ptr<Command> make_crews_call_file();
std::unique_ptr<Command> make_crews_reply();
std::unique_ptr<Command> make_crews_cancel();
std::unique_ptr<Command> make_functions_list();
std::unique_ptr<Command> make_functions_call();
std::unique_ptr<Command> make_functions_call_status();
std::unique_ptr<Command> make_functions_calls();
std::unique_ptr<Command> make_functions_call_file();
std::unique_ptr<Command> make_functions_reply();
std::unique_ptr<Command> make_functions_cancel();
std::unique_ptr<Command> make_functions_ask();
std::unique_ptr<Command> make_mcp_serve();
std::unique_ptr<Command> make_bridge_message_ack();
std::unique_ptr<Command> make_bridge_message_no_reply();
std::unique_ptr<Command> make_bridge_message_reply();
std::unique_ptr<Command> make_bridge_message_send();
std::unique_ptr<Command> make_bridge_message_read();
std::unique_ptr<Command> make_bridge_function_list();
std::unique_ptr<Command> make_bridge_function_call();
std::unique_ptr<Command> make_bridge_function_status();
std::unique_ptr<Command> make_bridge_function_reply();
std::unique_ptr<Command> make_bridge_function_cancel();
std::unique_ptr<Command> make_bridge_message_peers();
std::unique_ptr<Command> make_attach();
std::unique_ptr<Command> make_detach();
std::unique_ptr<Command> make_claude();
std::unique_ptr<Command> make_native();
std::unique_ptr<Command> make_completion();
std::unique_ptr<Command> make_manual();

namespace {

constexpr std::array kCommands = {
    CommandEntry{"up", "Start the embedded agentworks server on loopback, log in to it, and start the bridge", make_up},
    CommandEntry{"down", "Stop the bridge, then the embedded agentworks server", make_down},
    CommandEntry{"status", "Show the server, whether it answers, who this login is, and the bridge (--agents)",
                 make_status},
    CommandEntry{"ui", "Serve the local status page on 127.0.0.1 and print its one-time link (opens a browser)",
                 make_ui},
    CommandEntry{"doctor", "Check the server, login, bridge, hooks, agent CLIs, journal and clock; say how to fix each",
                 make_doctor},
    CommandEntry{"daemon start", "Start the agentworks bridge (does nothing when it runs)", make_daemon_start},
    CommandEntry{"daemon stop", "Stop the agentworks bridge", make_daemon_stop},
    CommandEntry{"daemon status", "Show whether the agentworks bridge runs, with a summary", make_daemon_status},
    CommandEntry{"daemon logs", "Show the tail of the agentworks bridge's log", make_daemon_logs},
    CommandEntry{"login", "Log in to an agentworks server with a token read from stdin", make_login},
    CommandEntry{"logout", "Forget the saved login (the token is not revoked)", make_logout},
    CommandEntry{"guidance context", "Show this login's public context and how agents message each other",
                 make_guidance_context},
    CommandEntry{"messages register", "Register (or update) a named agent that can receive messages",
                 make_messages_register},
    CommandEntry{"messages list", "List the named agents of this account", make_messages_list},
    CommandEntry{"messages send", "Send a message to a named agent or into a conversation inbox",
                 make_messages_send},
    CommandEntry{"messages read", "Read an agent's mailbox or one conversation inbox", make_messages_read},
    CommandEntry{"messages state", "The owner's view of an agent's inboxes and their last deliveries (no bodies)",
                 make_messages_state},
    CommandEntry{"messages receipt", "Show (or, as the receiver, advance) a message's delivery receipt",
                 make_messages_receipt},
    CommandEntry{"messages inbox", "Show a conversation inbox's state", make_messages_inbox},
    CommandEntry{"messages unregister", "Remove a named agent", make_messages_unregister},
    CommandEntry{"agents grant", "Let the chat attached as NAME use the functions of Crews (--functions LIST|all)",
                 make_agents_grant},
    CommandEntry{"agents revoke", "Take back an agent's grant of functions (--functions)", make_agents_revoke},
    CommandEntry{"agents show", "Show a named agent and the functions its chat may use", make_agents_show},
    CommandEntry{"agents set", "Choose how the chat attached as NAME talks (--communication) and whether silent turns are nudged (--nudge)",
                 make_agents_set},
    CommandEntry{"wakeups schedule", "Prompt the chat attached as NAME again later (--after-minutes N | --at TIME)",
                 make_wakeups_schedule},
    CommandEntry{"wakeups list", "An agent's pending wakeups and its last others, with their states",
                 make_wakeups_list},
    CommandEntry{"wakeups cancel", "Cancel a pending wakeup", make_wakeups_cancel},
    CommandEntry{"wakeups pause", "Hold every wakeup of this account (due ones wait)", make_wakeups_pause},
    CommandEntry{"wakeups resume", "Let held wakeups fire again", make_wakeups_resume},
    CommandEntry{"crews register", "Register a project folder (with .agentworks/functions.json) as a Crew",
                 make_crews_register},
    CommandEntry{"crews serve", "Serve a Crew registered from this computer (--serve-here): run its calls here until stopped",
                 make_crews_serve},
    CommandEntry{"crews stop-serving", "Stop serving a Crew from its computer (its open calls are cancelled)",
                 make_crews_stop_serving},
    CommandEntry{"crews list", "List this account's Crews", make_crews_list},
    CommandEntry{"crews show", "Show a Crew: its functions, its agent, messaging and conversations", make_crews_show},
    CommandEntry{"crews unregister", "Remove a Crew (its folder stays)", make_crews_unregister},
    CommandEntry{"crews reload", "Read a Crew's .agentworks/functions.json and crew.json again", make_crews_reload},
    CommandEntry{"crews allow", "Set the tools and sandbox a Crew's agent functions and agent may use",
                 make_crews_allow},
    CommandEntry{"crews set", "Switch a Crew's messaging on, off, or back to its crew.json (--messaging on|off|file)",
                 make_crews_set},
    CommandEntry{"crews ask", "Talk to the Crew NAME's own agent (messages send --target crew:NAME); it answers in "
                 "the conversation when it chooses", make_crews_ask},
    CommandEntry{"crews call", "Call a function of the Crew NAME (functions call with the Crew first)",
                 make_crews_call},
    CommandEntry{"crews call-status", "Show a call's status (same as functions call-status)", make_crews_call_status},
    CommandEntry{"crews call-file", "Read a call's output file (same as functions call-file)", make_crews_call_file},
    CommandEntry{"crews reply", "Answer a call's pending question (same as functions reply)", make_crews_reply},
    CommandEntry{"crews cancel", "Ask a running call to end (same as functions cancel)", make_crews_cancel},
    CommandEntry{"functions list", "List the functions of a Crew you may call", make_functions_list},
    CommandEntry{"functions call", "Call a Crew's function with JSON arguments; answers the call (call_id, status)",
                 make_functions_call},
    CommandEntry{"functions call-status", "Show a call's status, progress, messages, outcome and files (--wait)",
                 make_functions_call_status},
    CommandEntry{"functions calls", "List recent calls, newest first: yours and those of your Crews (--crew, --before)",
                 make_functions_calls},
    CommandEntry{"functions call-file", "Read a call's output file a page at a time, or all of it with --output",
                 make_functions_call_file},
    CommandEntry{"functions reply", "Answer a question a running call asked (pending_inputs)", make_functions_reply},
    CommandEntry{"functions cancel", "Ask a running or waiting call to end: it ends cancelled (--wait for the end)",
                 make_functions_cancel},
    CommandEntry{"functions ask", "Inside a function execution only: ask the caller a question and print the answer",
                 make_functions_ask},
    CommandEntry{"mcp serve",
                 "The messaging MCP server an agent CLI starts over stdio (credential-less; --full: your login)",
                 make_mcp_serve},
    CommandEntry{"bridge message ack", "As this attached chat: mark a message admitted or processed",
                 make_bridge_message_ack},
    CommandEntry{"bridge message no-reply", "As this attached chat: decline to answer a message on purpose",
                 make_bridge_message_no_reply},
    CommandEntry{"bridge message reply", "As this attached chat: reply in a message's conversation",
                 make_bridge_message_reply},
    CommandEntry{"bridge message send", "As this attached chat: send to another agent", make_bridge_message_send},
    CommandEntry{"bridge message read", "As this attached chat: read its agent's mailbox", make_bridge_message_read},
    CommandEntry{"bridge message peers", "As this attached chat: list the other agents", make_bridge_message_peers},
    CommandEntry{"bridge function list", "As this attached chat: list a granted Crew's functions",
                 make_bridge_function_list},
    CommandEntry{"bridge function call", "As this attached chat: call a granted Crew's function (the outcome comes "
                 "back to the chat)", make_bridge_function_call},
    CommandEntry{"bridge function status", "As this attached chat: read a call it made", make_bridge_function_status},
    CommandEntry{"bridge function reply", "As this attached chat: answer a question of a call it made",
                 make_bridge_function_reply},
    CommandEntry{"bridge function cancel", "As this attached chat: ask a call it made to end",
                 make_bridge_function_cancel},
    CommandEntry{"attach",
                 "Install the agentworks hooks/plugin for claude, codex, cursor or pi in this project (attaches no chat)",
                 make_attach},
    CommandEntry{"detach", "Detach one chat (--provider, --session) after a confirmation on the terminal",
                 make_detach},
    CommandEntry{"native", "Turn native push into attached chats on or off (on, off, status)", make_native},
    CommandEntry{"claude", "Start Claude Code with the agentworks channel enabled (ARGS pass through; --dry-run)",
                 make_claude},
    CommandEntry{"completion", "Print the bash or zsh completion script (generated from this table)", make_completion},
    CommandEntry{"manual", "Print the agentworks(1) manual page in roff (`agentworks manual | man -l -`)",
                 make_manual},
};

constexpr std::array kGroups = {
    GroupEntry{"messages", "Named agents and direct messages"},
    GroupEntry{"agents", "What the person lets a named agent's chat do (grants of functions, how it talks)"},
    GroupEntry{"wakeups", "Durable wakeups: prompt an attached chat again later"},
    GroupEntry{"daemon", "The local agentworks bridge (agentworks-bridge)"},
    GroupEntry{"guidance", "Context and guidance for agents"},
    GroupEntry{"crews", "Project folders whose functions others can call, and whose own agent they can talk to"},
    GroupEntry{"functions", "Calling a Crew's functions and following the calls"},
    GroupEntry{"mcp", "The MCP servers for agent CLIs (messaging; --full for functions and messages)"},
    GroupEntry{"bridge", "Messaging and granted functions as the attached chat this runs in, through the bridge"},
    GroupEntry{"message", "ack, reply, send, read, peers for the attached chat of the calling process"},
    GroupEntry{"function", "list, call, status, reply, cancel of granted functions for the attached chat"},
};

}  // namespace

std::span<const CommandEntry> command_table() { return kCommands; }
std::span<const GroupEntry> group_table() { return kGroups; }

}  // namespace agentworks::cli
