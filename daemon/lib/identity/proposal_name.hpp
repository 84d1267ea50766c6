// The name and purpose `/agentworks attach` proposes for a chat (R-H5): from the folder the chat runs in and
// the provider, folded to a valid agent name and made unique against the names already taken. Pure.
#pragma once

#include <set>
#include <string>

namespace agentworks::bridge {

// "<folder>-<provider>" folded to the name rules (lower case; other characters become '-'), e.g.
// "/home/ann/My Repo" + "claude" -> "my-repo-claude"; "agentworks-<provider>"-style fallback "chat-<provider>".
std::string proposal_base(const std::string& cwd, const std::string& provider);
// `base`, else base-2, base-3, … : the first whose folded form is not in `taken_folded`.
std::string unique_name(const std::string& base, const std::set<std::string>& taken_folded);
// "<Claude Code|Codex|Cursor> chat in <cwd>", at most 500 characters.
std::string default_purpose(const std::string& provider, const std::string& cwd);
// "Claude Code", "Codex", "Cursor", else the provider id.
std::string provider_display(const std::string& provider);

}  // namespace agentworks::bridge
