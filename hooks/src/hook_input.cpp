#include "hook_input.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <nlohmann/json.hpp>

namespace agentworks::hook {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string string_field(const json& j, const char* key) {
  const auto it = j.find(key);
  return (it != j.end() && it->is_string()) ? it->get<std::string>() : std::string();
}

}  // namespace

std::optional<std::string> read_all_bounded(int fd, std::size_t max_bytes, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  std::string data;
  char buf[65536];
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return std::nullopt;
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno != EINTR) return std::nullopt;
    if (ready <= 0) continue;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) return data;
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return std::nullopt;
    }
    data.append(buf, static_cast<std::size_t>(n));
    if (data.size() > max_bytes) return std::nullopt;
  }
}

bool valid_session_id(std::string_view id) {
  if (id.empty() || id.size() > 200) return false;
  for (const char c : id) {
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

std::optional<HookInput> parse_hook_input(std::string_view text, Provider provider) {
  const json j = json::parse(text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  HookInput in;
  if (provider == Provider::cursor) {
    in.session_id = string_field(j, "conversation_id");
    if (const auto roots = j.find("workspace_roots"); roots != j.end() && roots->is_array() && !roots->empty() &&
                                                         roots->front().is_string()) {
      in.cwd = roots->front().get<std::string>();
    }
    if (const auto lc = j.find("loop_count"); lc != j.end() && lc->is_number_integer()) {
      in.loop_count = lc->get<long long>();
    }
    in.status = string_field(j, "status");
  } else {
    in.session_id = string_field(j, "session_id");
    in.cwd = string_field(j, "cwd");
    if (const auto active = j.find("stop_hook_active"); active != j.end() && active->is_boolean()) {
      in.stop_hook_active = active->get<bool>();
    }
    in.source = string_field(j, "source");
    in.last_assistant_message = string_field(j, "last_assistant_message");
  }
  if (!valid_session_id(in.session_id)) in.session_id.clear();
  if (const auto prompt = j.find("prompt"); prompt != j.end() && prompt->is_string()) {
    in.prompt = prompt->get<std::string>();
  }
  return in;
}

}  // namespace agentworks::hook
