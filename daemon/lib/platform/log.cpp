#include "platform/log.hpp"

#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <vector>

namespace agentworks::bridge::log {
namespace {

std::shared_ptr<spdlog::logger>& logger() {
  static std::shared_ptr<spdlog::logger> l;
  return l;
}

}  // namespace

void init(const std::filesystem::path& file, bool also_stderr) {
  std::vector<spdlog::sink_ptr> sinks;
  try {
    sinks.push_back(std::make_shared<spdlog::sinks::rotating_file_sink_mt>(file.string(), 5 * 1024 * 1024, 3));
  } catch (const std::exception&) {
    // No log file (read-only state dir): keep going with stderr only; the journal open will say what is wrong.
  }
  if (also_stderr) sinks.push_back(std::make_shared<spdlog::sinks::stderr_sink_mt>());
  auto l = std::make_shared<spdlog::logger>("bridge", sinks.begin(), sinks.end());
  l->set_pattern("%Y-%m-%dT%H:%M:%S.%e%z %l %v");
  l->flush_on(spdlog::level::info);
  logger() = l;
}

void info(std::string_view text) {
  if (logger()) logger()->info("{}", text);
}
void warn(std::string_view text) {
  if (logger()) logger()->warn("{}", text);
}
void error(std::string_view text) {
  if (logger()) logger()->error("{}", text);
}
void flush() {
  if (logger()) logger()->flush();
}

}  // namespace agentworks::bridge::log
