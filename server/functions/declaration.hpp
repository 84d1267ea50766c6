// A Crew's function declarations, read from DIR/.agentworks/functions.json (docs/functions.md).
// Parsing checks everything a call will rely on (keys, names, schemas, the command inside the project), so a
// refused file never replaces the declaration in force. Schemas are kept as JSON text.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace agentworks::server::functions {

inline constexpr int kDefaultTimeoutSeconds = 600;
inline constexpr int kMaxTimeoutSeconds = 86400;
inline constexpr std::size_t kMaxFunctions = 100;
inline constexpr std::size_t kMaxDeclarationBytes = 1024 * 1024;

struct FunctionDecl {
  std::string name;
  std::string description;
  std::string inputs_json;                        // JSON Schema draft-07, compact text
  std::optional<std::string> output_schema_json;  // absent or null: the answer is the result
  std::vector<std::string> command;               // run.command: argv, argv[0] a project path or a PATH name
  int timeout_seconds = kDefaultTimeoutSeconds;
  std::vector<std::string> allowed_callers;       // account ids; empty: the owner's account only
};

struct Declaration {
  std::vector<FunctionDecl> functions;
};

// The declaration file of a Crew folder.
std::filesystem::path declaration_path(const std::filesystem::path& crew_dir);

// Reads and checks DIR/.agentworks/functions.json. Throws Error(invalid_declaration) with "PATH:LINE: reason".
Declaration load_declaration(const std::filesystem::path& crew_dir);
// The same checks on text (tests; `crew_dir` resolves the commands).
Declaration parse_declaration(const std::string& text, const std::filesystem::path& crew_dir,
                              const std::string& shown_path);

// The stored form (the crews row) and back; the stored form is always one that parse_declaration accepted.
std::string declaration_to_json(const Declaration& d);
Declaration declaration_from_json(const std::string& text);

const FunctionDecl* find_function(const Declaration& d, const std::string& name);

}  // namespace agentworks::server::functions
