#include "testing/sse_client.hpp"

#include <sstream>
#include <stdexcept>

namespace agentworks::testing {

SseStream::SseStream(const std::string& base_url, const std::string& path, const std::string& token,
                     const std::optional<std::string>& last_event_id, std::chrono::milliseconds timeout) {
  const int port = port_of_url(base_url);
  conn_ = std::make_unique<Connection>(port);
  std::ostringstream req;
  req << "GET " << path << " HTTP/1.1\r\nHost: 127.0.0.1:" << port << "\r\nAccept: text/event-stream\r\n";
  if (!token.empty()) req << "Authorization: Bearer " << token << "\r\n";
  if (last_event_id) req << "Last-Event-ID: " << *last_event_id << "\r\n";
  req << "\r\n";
  conn_->write_all(req.str());
  if (!read_response_head(*conn_, Connection::Clock::now() + timeout, head_)) {
    throw std::runtime_error("SSE " + path + ": " + head_.error);
  }
  body_ = std::make_unique<BodyReader>(*conn_, head_.headers);
}

SseStream::~SseStream() = default;

const std::string& SseStream::error_body(std::chrono::milliseconds timeout) {
  if (!error_body_read_) {
    error_body_read_ = true;
    const auto deadline = Connection::Clock::now() + timeout;
    while (auto piece = body_->next(deadline)) error_body_ += *piece;
  }
  return error_body_;
}

std::optional<SseEvent> SseStream::parse_buffered() {
  while (true) {
    const auto nl = pending_.find('\n');
    if (nl == std::string::npos) return std::nullopt;
    std::string line = pending_.substr(0, nl);
    pending_.erase(0, nl + 1);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      if (!current_has_fields_) continue;
      SseEvent ev = std::move(current_);
      current_ = {};
      current_has_fields_ = false;
      if (ev.event.empty()) ev.event = "message";
      if (!ev.data.empty() && ev.data.back() == '\n') ev.data.pop_back();
      return ev;
    }
    if (line[0] == ':') {
      comments_.push_back(line.substr(1));
      continue;
    }
    const auto colon = line.find(':');
    std::string field = line.substr(0, colon);
    std::string value = colon == std::string::npos ? "" : line.substr(colon + 1);
    if (!value.empty() && value[0] == ' ') value.erase(0, 1);
    if (field == "data") {
      current_.data += value + "\n";
      current_has_fields_ = true;
    } else if (field == "event") {
      current_.event = value;
      current_has_fields_ = true;
    } else if (field == "id") {
      current_.id = value;
    } else if (field == "retry") {
      retry_ = value;
    }
  }
}

std::optional<SseEvent> SseStream::next_event(std::chrono::milliseconds timeout) {
  const auto deadline = Connection::Clock::now() + timeout;
  while (true) {
    if (auto ev = parse_buffered()) return ev;
    auto piece = body_->next(deadline);
    if (!piece) return std::nullopt;
    pending_ += *piece;
  }
}

std::optional<SseEvent> SseStream::next_event_named(const std::string& name, std::chrono::milliseconds timeout) {
  const auto deadline = Connection::Clock::now() + timeout;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Connection::Clock::now());
    if (left.count() <= 0) return std::nullopt;
    auto ev = next_event(left);
    if (!ev) return std::nullopt;
    if (ev->event == name) return ev;
    skipped_.push_back(std::move(*ev));
  }
}

bool SseStream::ended() const { return body_->ended() && pending_.find('\n') == std::string::npos; }

bool SseStream::wait_closed(std::chrono::milliseconds timeout) {
  const auto deadline = Connection::Clock::now() + timeout;
  while (!ended()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Connection::Clock::now());
    if (left.count() <= 0) return false;
    auto ev = next_event(left);
    if (ev) {
      skipped_.push_back(std::move(*ev));
    } else if (!body_->ended()) {
      return false;  // timed out
    }
  }
  return true;
}

}  // namespace agentworks::testing
