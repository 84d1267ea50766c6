// The bridge's log (spdlog stays inside log.cpp): a rotating file in the state directory, plus stderr when
// the bridge runs in the foreground.
#pragma once

#include <filesystem>
#include <string_view>

namespace agentworks::bridge::log {

void init(const std::filesystem::path& file, bool also_stderr);
void info(std::string_view text);
void warn(std::string_view text);
void error(std::string_view text);
void flush();

}  // namespace agentworks::bridge::log
