#include "platform/turn_budget.hpp"

#include <algorithm>

namespace agentworks::bridge {

TurnBudget::TurnBudget(uv_loop_t* loop) : idle_(new uv_idle_t) {
  uv_idle_init(loop, idle_);
  idle_->data = this;
}

TurnBudget::~TurnBudget() { close(); }

void TurnBudget::close() {
  waiters_.clear();
  if (idle_ == nullptr) return;
  uv_idle_stop(idle_);
  uv_close(reinterpret_cast<uv_handle_t*>(idle_), [](uv_handle_t* h) { delete reinterpret_cast<uv_idle_t*>(h); });
  idle_ = nullptr;
}

bool TurnBudget::try_take() {
  if (idle_ == nullptr) return true;  // closed: nothing paces any more
  if (used_) return false;
  used_ = true;
  uv_idle_start(idle_, &TurnBudget::on_idle);
  return true;
}

void TurnBudget::wait(const void* owner, std::function<void()> resume) {
  if (idle_ == nullptr) return;
  waiters_.emplace_back(owner, std::move(resume));
  uv_idle_start(idle_, &TurnBudget::on_idle);
}

void TurnBudget::cancel(const void* owner) {
  std::erase_if(waiters_, [owner](const auto& w) { return w.first == owner; });
}

void TurnBudget::on_idle(uv_idle_t* idle) { static_cast<TurnBudget*>(idle->data)->run(); }

void TurnBudget::run() {
  used_ = false;
  if (waiters_.empty()) {
    uv_idle_stop(idle_);
    return;
  }
  auto resume = std::move(waiters_.front().second);
  waiters_.pop_front();
  resume();  // usually takes the unit at once: curl hands the paused chunk over from inside the resume
}

}  // namespace agentworks::bridge
