// Reading the hooks files `agentworks attach` writes (Claude/Codex groups, Cursor's flat list): our entries with
// where they sit (the event, the group and hook index Codex keys its trust by) and the program they run.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "doctor/doctor_check.hpp"

namespace agentworks::cli::doctor {

struct HookEntry {
  std::string event;   // as in the file ("Stop", "stop")
  std::size_t group = 0;
  std::size_t index = 0;
  std::string command;
};

struct HooksFile {
  std::filesystem::path path;
  bool exists = false;
  std::string problem;             // unreadable or not a hooks file
  std::vector<HookEntry> ours;     // entries that run agentworks-hook
};

HooksFile read_hooks_file(const std::filesystem::path& path);

// The program a hook command runs: its first shell word, unquoted.
std::string command_program(const std::string& command);

// Whether `path` is an executable regular file.
bool is_executable(const std::string& path);

// The verdict on one provider's hooks files (`candidates`, most specific first): ok when one holds our entries
// and each runs an existing agentworks-hook; fail when an entry runs a missing program; when none holds any, fail
// if the person named this provider with --provider, else warn. `fix` installs them.
Finding hooks_verdict(const std::vector<std::filesystem::path>& candidates, bool provider_named,
                      const std::string& fix);

}  // namespace agentworks::cli::doctor
