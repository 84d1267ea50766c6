#include "checks.hpp"

#include <unistd.h>

#include <cerrno>

#include "agentworks/error.hpp"
#include "agentworks/server_client.hpp"
#include "agentworks/validation.hpp"

namespace agentworks::cli {

void check_agent_name(std::string_view name) {
  if (!valid_agent_name(name)) {
    throw Error(ErrorCode::invalid_name,
                "invalid agent name \"" + std::string(name) +
                    "\": use 1-64 ASCII letters, digits, '.', '_' or '-', starting with a letter or digit");
  }
}

void check_crew_name(std::string_view name) {
  if (!valid_agent_name(name)) {
    throw Error(ErrorCode::invalid_name,
                "invalid Crew name \"" + std::string(name) +
                    "\": use 1-64 ASCII letters, digits, '.', '_' or '-', starting with a letter or digit");
  }
}

std::string agent_path_segment(std::string_view agent) {
  if (agent.starts_with("crew:")) {
    check_crew_name(agent.substr(5));
    return "crew:" + url_encode(agent.substr(5));
  }
  check_agent_name(agent);
  return url_encode(agent);
}

std::string message_target(std::string_view target) {
  if (target.find(':') == std::string_view::npos) {
    check_agent_name(target);
    return "agent:" + std::string(target);
  }
  if (target.starts_with("agent:")) check_agent_name(target.substr(6));
  if (target.starts_with("crew:")) check_crew_name(target.substr(5));
  return std::string(target);
}

void check_message_text(std::string_view text) {
  auto length = utf8_length(text);
  if (!length) throw Error(ErrorCode::invalid_message, "the message is not valid UTF-8");
  if (*length == 0) throw Error(ErrorCode::invalid_message, "the message is empty; pass text with --message");
  if (blank_text(text)) {
    throw Error(ErrorCode::invalid_message, "the message holds only spaces or line breaks; pass text with --message");
  }
  if (*length > kMaxMessageChars) {
    throw Error(ErrorCode::invalid_message, "the message has " + std::to_string(*length) +
                                                " characters; the limit is 20,000: shorten or split it");
  }
}

void check_range(std::string_view option, int value, int low, int high) {
  if (value < low || value > high) {
    throw Error(ErrorCode::bad_request, std::string(option) + " must be between " + std::to_string(low) +
                                            " and " + std::to_string(high) + ", not " +
                                            std::to_string(value));
  }
}

std::string read_all_stdin() {
  std::string text;
  char buf[65536];
  while (true) {
    ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  return text;
}

std::string message_argument(const std::string& value) {
  if (value != "-") return value;
  std::string text = read_all_stdin();
  if (!text.empty() && text.back() == '\n') {
    text.pop_back();
    if (!text.empty() && text.back() == '\r') text.pop_back();
  }
  return text;
}

std::filesystem::path project_directory(const std::string& option) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path dir = option.empty() ? fs::current_path(ec) : fs::absolute(option, ec).lexically_normal();
  if (ec || !fs::is_directory(dir, ec)) {
    throw Error(ErrorCode::usage, "the project directory " + (option.empty() ? dir.string() : option) +
                                      " does not exist; pass an existing directory with --project DIR");
  }
  const fs::path real = fs::canonical(dir, ec);
  return ec ? dir : real;
}

}  // namespace agentworks::cli
