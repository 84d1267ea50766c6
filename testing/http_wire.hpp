// The one HTTP/1.1 response parser of the tests and benchmarks: a response-head parser (testing/http_client.cpp,
// bench/http_client.cpp, bench/sse_stream_pool.cpp) and an incremental chunked-transfer decoder for readers that
// do not block. Only what agentworks-server sends is needed (Content-Length or chunked bodies, no 1xx, no
// compression).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace agentworks::testing {

struct ResponseHead {
  int status = 0;
  std::map<std::string, std::string> headers;  // names in lower case, values trimmed; the last of a repeated name
  std::optional<std::size_t> content_length;
  bool chunked = false;
  bool close = false;  // "Connection: close"
};

// Parses "HTTP/1.1 200 OK\r\nName: value\r\n..." (without the final blank line); nullopt when the status line is
// not HTTP/1.x with a three-digit status or a Content-Length is not a number.
std::optional<ResponseHead> parse_response_head(std::string_view head);

// Feeds raw chunked-encoding bytes, hands decoded body bytes to `sink`.
class ChunkedDecoder {
 public:
  enum class Result { more, done, error };

  // Decodes as much of `bytes` as possible; *consumed tells how many bytes were used
  // (less than bytes.size() only when the body ended, so the rest is the next response).
  template <typename Sink>
  Result feed(std::string_view bytes, std::size_t* consumed, Sink&& sink);

 private:
  enum class State { size_line, data, data_crlf, trailer };
  State state_ = State::size_line;
  std::string line_;
  std::uint64_t remaining_ = 0;
};

template <typename Sink>
ChunkedDecoder::Result ChunkedDecoder::feed(std::string_view bytes, std::size_t* consumed, Sink&& sink) {
  std::size_t pos = 0;
  auto finish = [&](Result result) {
    *consumed = pos;
    return result;
  };
  while (pos < bytes.size()) {
    switch (state_) {
      case State::size_line:
      case State::data_crlf:
      case State::trailer: {
        const std::size_t nl = bytes.find('\n', pos);
        const std::size_t end = nl == std::string_view::npos ? bytes.size() : nl;
        line_.append(bytes.substr(pos, end - pos));
        if (line_.size() > 1024) return finish(Result::error);
        if (nl == std::string_view::npos) {
          pos = end;  // the partial line is kept in line_: those bytes are consumed
          return finish(Result::more);
        }
        pos = nl + 1;
        if (!line_.empty() && line_.back() == '\r') line_.pop_back();
        std::string line;
        line.swap(line_);
        if (state_ == State::data_crlf) {
          if (!line.empty()) return finish(Result::error);
          state_ = State::size_line;
        } else if (state_ == State::trailer) {
          if (line.empty()) {
            state_ = State::size_line;
            return finish(Result::done);
          }
        } else {
          std::uint64_t size = 0;
          std::size_t i = 0;
          for (; i < line.size(); ++i) {
            const char c = line[i];
            int digit = -1;
            if (c >= '0' && c <= '9') digit = c - '0';
            else if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
            else if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
            else break;
            if (size > (std::uint64_t{1} << 40)) return finish(Result::error);
            size = size * 16 + static_cast<std::uint64_t>(digit);
          }
          if (i == 0) return finish(Result::error);
          remaining_ = size;
          state_ = size == 0 ? State::trailer : State::data;
        }
        break;
      }
      case State::data: {
        const std::size_t take =
            static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, bytes.size() - pos));
        sink(bytes.substr(pos, take));
        pos += take;
        remaining_ -= take;
        if (remaining_ == 0) state_ = State::data_crlf;
        break;
      }
    }
  }
  return finish(Result::more);
}

}  // namespace agentworks::testing
