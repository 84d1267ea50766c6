// Reading and writing the installer's files: JSON config files of the providers (kept if malformed: the
// person fixes them) and whole files replaced atomically, so a crash never leaves half a hooks file.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace agentworks::cli::install {

// The JSON in `path`; null when the file does not exist. Throws Error(bad_request) when it is not JSON.
nlohmann::json read_json_file(const std::filesystem::path& path);

// Current content of `path`, "" when missing.
std::string read_text_file(const std::filesystem::path& path);

// Writes `content` to `path` (parents created) through a temp file + rename. Returns false when the file
// already held exactly `content` (nothing written). Throws Error(internal) with the path on failure.
bool write_file_atomic(const std::filesystem::path& path, const std::string& content);

// JSON as the installer writes it: 2-space indent and a final newline.
std::string pretty_json(const nlohmann::json& doc);

}  // namespace agentworks::cli::install
