#include "mcp/steer_pump.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include <nlohmann/json.hpp>

#include "agentworks/bridge_client.hpp"
#include "agentworks/error.hpp"
#include "agentworks/local_protocol.hpp"

namespace agentworks::cli::mcp {

using nlohmann::json;
using std::chrono::milliseconds;

namespace {

constexpr milliseconds kSteerWait{25000};
constexpr milliseconds kCallSlack{10000};
constexpr milliseconds kIdleInterval{2000};    // not attached yet, or no bridge
constexpr milliseconds kNoParkInterval{200};  // answered early with nothing: ask again soon, not at once

}  // namespace

SteerPump::SteerPump(LineWriter& writer, CallerIdentity caller, std::string session_id, SteerOffer offer)
    : writer_(writer), caller_(std::move(caller)), session_id_(std::move(session_id)), offer_(std::move(offer)) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    throw Error(ErrorCode::internal, std::string("cannot create the steer pump's stop pipe: ") + std::strerror(errno));
  }
  stop_read_ = UniqueFd(fds[0]);
  stop_write_ = UniqueFd(fds[1]);
}

SteerPump::~SteerPump() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  [[maybe_unused]] const auto n = ::write(stop_write_.get(), "x", 1);
  if (thread_.joinable()) thread_.join();
}

void SteerPump::start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { run(); });
}

bool SteerPump::stopping() {
  const std::lock_guard lock(mutex_);
  return stop_;
}

milliseconds SteerPump::wait_once() {
  json request = {{"op", local_protocol::op::steer_wait},
                  {"wait_ms", kSteerWait.count()},
                  {"pi_version", offer_.pi_version},
                  {"fresh", fresh_}};
  if (!offer_.unusable.empty()) request["unusable"] = offer_.unusable;
  add_session_selector(request, caller_, session_id_);
  const auto started = std::chrono::steady_clock::now();
  const json answer = bridge_client::call_cancellable(request, kSteerWait + kCallSlack, stop_read_.get());
  fresh_ = false;
  if (answer.value("route", std::string()) == "off") {
    writer_.write(rpc_notification("notifications/agentworks/steer_off", {{"reason", answer.value("reason", "")}}));
    off_ = true;  // this Pi cannot be steered: the extension delivers at the end of each turn
    return milliseconds(0);
  }
  const auto push = answer.find("push");
  if (push != answer.end() && push->is_object()) {
    writer_.write(rpc_notification("notifications/agentworks/steer",
                                   {{"push_id", push->value("push_id", "")}, {"text", push->value("text", "")}}));
    return milliseconds(0);
  }
  return std::chrono::steady_clock::now() - started >= kSteerWait / 2 ? milliseconds(0) : kNoParkInterval;
}

milliseconds SteerPump::next_wait() {
  try {
    return wait_once();
  } catch (const Error&) {
    return kIdleInterval;  // not attached yet, no bridge, or stopping
  } catch (const std::exception& e) {
    std::cerr << "agentworks mcp: steer: " << e.what() << std::endl;
    return kIdleInterval;
  }
}

void SteerPump::run() {
  while (!stopping()) {
    const milliseconds wait = next_wait();
    if (off_) return;
    if (wait.count() == 0) continue;
    std::unique_lock lock(mutex_);
    if (wake_.wait_for(lock, wait, [this] { return stop_; })) return;
  }
}

json forward_steer_result(const json& params, const CallerIdentity& caller, const std::string& session_id) {
  json request = {{"op", local_protocol::op::steer_result}};
  for (const char* field : {"push_id", "outcome", "detail"}) {
    if (params.is_object() && params.contains(field)) request[field] = params[field];
  }
  add_session_selector(request, caller, session_id);
  const json answer = bridge_client::call(request, std::chrono::seconds(5));
  return {{"settled", answer.value("settled", false)}};
}

}  // namespace agentworks::cli::mcp
