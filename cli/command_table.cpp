// The one command table: every subcommand of `agentworks`, in help order.
#include "command.hpp"

#include <array>

namespace agentworks::cli {

std::unique_ptr<Command> make_up();
std::unique_ptr<Command> make_down();
std::unique_ptr<Command> make_status();
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

namespace {

constexpr std::array kCommands = {
    CommandEntry{"up", "Start the embedded agentworks server on loopback, log in to it, and start the bridge", make_up},
    CommandEntry{"down", "Stop the bridge, then the embedded agentworks server", make_down},
    CommandEntry{"status", "Show the server, whether it answers, who this login is, and the bridge (--agents)",
                 make_status},
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
    CommandEntry{"messages receipt", "Show (or, as the receiver, advance) a message's delivery receipt",
                 make_messages_receipt},
    CommandEntry{"messages inbox", "Show a conversation inbox's state", make_messages_inbox},
    CommandEntry{"messages unregister", "Remove a named agent", make_messages_unregister},
};

constexpr std::array kGroups = {
    GroupEntry{"messages", "Named agents and direct messages"},
    GroupEntry{"daemon", "The local agentworks bridge (agentworks-bridge)"},
    GroupEntry{"guidance", "Context and guidance for agents"},
};

}  // namespace

std::span<const CommandEntry> command_table() { return kCommands; }
std::span<const GroupEntry> group_table() { return kGroups; }

}  // namespace agentworks::cli
