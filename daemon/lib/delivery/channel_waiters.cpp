#include "delivery/channel_waiters.hpp"
#include "platform/uv_handle.hpp"

#include <algorithm>
#include <utility>

namespace agentworks::bridge {

ChannelWaiters::ChannelWaiters(uv_loop_t* loop) : timer_(open_timer(loop, this)) {}

ChannelWaiters::~ChannelWaiters() { stop(); }

void ChannelWaiters::stop() {
  waiters_.clear();
  close_timer(timer_);
}

void ChannelWaiters::park(const std::string& attachment_id, std::chrono::milliseconds wait, Reply reply,
                          Resume resume) {
  if (timer_ == nullptr) return;  // stopped: the connection closes unanswered
  // Clients that have gone free their places first; then the oldest over the cap is answered now.
  std::erase_if(waiters_, [](const Waiter& w) { return !w.woken && !w.reply.connected(); });
  std::size_t same = 0;
  for (const auto& w : waiters_) same += w.attachment_id == attachment_id ? 1U : 0U;
  for (auto& w : waiters_) {
    if (same < kMaxPerAttachment) break;
    if (w.attachment_id != attachment_id || w.woken) continue;
    w.woken = true;
    w.deadline = Clock::now();
    --same;
  }
  waiters_.push_back({attachment_id, Clock::now() + wait, std::move(reply), std::move(resume)});
  arm();
}

void ChannelWaiters::wake(const std::string& attachment_id) {
  bool any = false;
  for (auto& w : waiters_) {
    if (w.attachment_id != attachment_id) continue;
    w.woken = true;
    any = true;
  }
  if (any) arm();
}

std::size_t ChannelWaiters::listening(const std::string& attachment_id) const {
  std::size_t n = 0;
  for (const auto& w : waiters_) n += w.attachment_id == attachment_id && w.reply.connected() ? 1U : 0U;
  return n;
}

void ChannelWaiters::arm() {
  if (timer_ == nullptr) return;
  uv_timer_stop(timer_);
  if (waiters_.empty()) return;
  auto next = Clock::time_point::max();
  for (const auto& w : waiters_) next = std::min(next, w.woken ? Clock::now() : w.deadline);
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(next - Clock::now()).count();
  uv_timer_start(
      timer_, [](uv_timer_t* t) { static_cast<ChannelWaiters*>(t->data)->run_due(); },
      static_cast<std::uint64_t>(std::max<std::int64_t>(0, left)), 0);
}

void ChannelWaiters::run_due() {
  const auto now = Clock::now();
  std::vector<Waiter> due;
  std::vector<Waiter> still;
  for (auto& w : waiters_) (w.woken || w.deadline <= now ? due : still).push_back(std::move(w));
  waiters_ = std::move(still);
  // A resume may park again (nothing for it after all), so the list is settled before any runs.
  for (auto& w : due) {
    if (!w.reply.connected()) continue;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(w.deadline - now);
    w.resume(w.reply, std::max(left, std::chrono::milliseconds(0)));
  }
  arm();
}

}  // namespace agentworks::bridge
