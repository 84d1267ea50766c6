// Small helpers for the human-readable output of commands.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace agentworks::cli {

// "2026-11-30 12:34:56" in local time, or "-" for a missing time.
std::string format_time(const nlohmann::json& unix_seconds);

// The string at j[key], or `fallback` when it is missing, null or not a string.
std::string text_or(const nlohmann::json& j, const char* key, const std::string& fallback = "-");

}  // namespace agentworks::cli
