#include "native/pi_steer.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "agentworks/native_versions.hpp"
#include "platform/uv_handle.hpp"

namespace agentworks::bridge::native {

using nlohmann::json;

std::optional<std::string> unverified_pi_version(const std::string& version) {
  if (native_versions::pi_steer_known(version)) return std::nullopt;
  return "Pi " + (version.empty() ? std::string("of an unknown version") : version) +
         " is not a version agentworks has verified (" + std::string(native_versions::kPiSteerRange) +
         "); messages arrive at the end of each turn";
}

PiSteer::PiSteer(uv_loop_t* loop) : timer_(open_timer(loop, this)) {}

PiSteer::~PiSteer() { stop(); }

void PiSteer::stop() {
  // The clients see their connections close; pushes in flight settle as ambiguous (they may have arrived).
  waits_.clear();
  auto pending = std::move(pending_);
  pending_.clear();
  for (auto& [id, p] : pending) p.done({PushOutcome::ambiguous, "the bridge stopped before the Pi extension answered"});
  close_timer(timer_);
}

void PiSteer::answer_idle(Wait& w) {
  if (!w.reply.sent()) w.reply.ok(json{{"push", nullptr}});
}

void PiSteer::park(const std::string& attachment_id, std::chrono::milliseconds wait, Reply reply) {
  if (timer_ == nullptr) return;  // stopped: the connection closes unanswered
  if (const auto it = waits_.find(attachment_id); it != waits_.end()) answer_idle(it->second);
  waits_.insert_or_assign(attachment_id, Wait{Clock::now() + wait, std::move(reply)});
  arm();
}

bool PiSteer::listening(const std::string& attachment_id) const {
  const auto it = waits_.find(attachment_id);
  return it != waits_.end() && !it->second.reply.sent() && it->second.reply.connected();
}

void PiSteer::push(const std::string& attachment_id, const std::string& text, PushDone done) {
  const auto it = waits_.find(attachment_id);
  if (it == waits_.end() || it->second.reply.sent() || !it->second.reply.connected()) {
    done({PushOutcome::refused, "the agentworks Pi extension is not waiting for messages"});
    return;
  }
  Reply reply = std::move(it->second.reply);
  waits_.erase(it);
  const std::string push_id = "push-" + std::to_string(next_push_++);
  pending_.emplace(push_id, Pending{attachment_id, Clock::now() + kResultWait, std::move(done)});
  arm();
  // Only an answer that reached the extension's socket can have been handed to Pi.
  reply.ok(json{{"push", {{"push_id", push_id}, {"text", text}}}}, [this, push_id](bool written) {
    if (!written) finish(push_id, {PushOutcome::refused, "the Pi extension went away before the text reached it"});
  });
}

bool PiSteer::result(const std::string& attachment_id, const std::string& push_id, const PushResult& result) {
  const auto it = pending_.find(push_id);
  if (it == pending_.end() || it->second.attachment_id != attachment_id) return false;
  finish(push_id, result);
  return true;
}

void PiSteer::finish(const std::string& push_id, PushResult result) {
  const auto it = pending_.find(push_id);
  if (it == pending_.end()) return;
  auto done = std::move(it->second.done);
  pending_.erase(it);
  done(std::move(result));
}

void PiSteer::refuse(const std::string& attachment_id, std::string reason) {
  refusals_.insert_or_assign(attachment_id, std::move(reason));
}

void PiSteer::clear_refusal(const std::string& attachment_id) { refusals_.erase(attachment_id); }

std::optional<std::string> PiSteer::refusal(const std::string& attachment_id) const {
  const auto it = refusals_.find(attachment_id);
  return it == refusals_.end() ? std::nullopt : std::optional<std::string>(it->second);
}

void PiSteer::release(const std::string& attachment_id) {
  if (const auto it = waits_.find(attachment_id); it != waits_.end()) {
    answer_idle(it->second);
    waits_.erase(it);
  }
  refusals_.erase(attachment_id);
}

void PiSteer::arm() {
  if (timer_ == nullptr) return;
  uv_timer_stop(timer_);
  auto next = Clock::time_point::max();
  for (const auto& [id, w] : waits_) next = std::min(next, w.deadline);
  for (const auto& [id, p] : pending_) next = std::min(next, p.deadline);
  if (next == Clock::time_point::max()) return;
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(next - Clock::now()).count();
  uv_timer_start(
      timer_, [](uv_timer_t* t) { static_cast<PiSteer*>(t->data)->run_due(); },
      static_cast<std::uint64_t>(std::max<std::int64_t>(0, left)), 0);
}

void PiSteer::run_due() {
  const auto now = Clock::now();
  for (auto it = waits_.begin(); it != waits_.end();) {
    if (it->second.deadline > now && !it->second.reply.sent()) {
      ++it;
      continue;
    }
    answer_idle(it->second);
    it = waits_.erase(it);
  }
  std::vector<std::string> late;
  for (const auto& [id, p] : pending_) {
    if (p.deadline <= now) late.push_back(id);
  }
  // R-N2: it may have reached Pi; never pushed again, the person is told.
  for (const auto& id : late) finish(id, {PushOutcome::ambiguous, "the Pi extension did not say whether Pi took it"});
  arm();
}

}  // namespace agentworks::bridge::native
