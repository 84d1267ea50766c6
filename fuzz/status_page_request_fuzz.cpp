// A request to the local status page (cli/ui/http_message.*): the head parser, query and cookie lookups and the
// peer-table search take bytes from any local process. Invariants: no crash or UB; a complete head lies within
// the input and within the bound; parsed method and header names are tokens; the table search finds nothing in
// a table without the socket.
#include <arpa/inet.h>

#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "ui/http_message.hpp"
#include "ui/peer_uid.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace agentworks::cli::ui;
  const std::string input(reinterpret_cast<const char*>(data), size);
  constexpr std::size_t kMax = 2048;
  const auto head = parse_head(input, kMax);
  if (head.status == HeadStatus::complete) {
    FUZZ_CHECK(head.head_bytes <= input.size() && head.head_bytes <= kMax, "the head lies within the input and bound");
    FUZZ_CHECK(!head.request.method.empty() && head.request.path.front() == '/', "a method and an origin path");
    for (const auto& [name, value] : head.request.headers) {
      FUZZ_CHECK(!name.empty() && name.find(':') == std::string::npos, "a header name without a colon");
      FUZZ_CHECK(value.find('\n') == std::string::npos, "a header value on one line");
    }
    (void)query_param(head.request.query, "token");
    (void)cookie_value(head.request.header("cookie"), "agentworks_ui_1");
  }
  (void)query_param(input, "token");
  (void)cookie_value(input, "a");
  const in_addr_t lo = htonl(INADDR_LOOPBACK);
  // The fuzz input as a socket table: 127.0.0.1 is the word 0100007F, so a table without "7f" names no loopback
  // socket.
  if (input.find("7F") == std::string::npos && input.find("7f") == std::string::npos) {
    FUZZ_CHECK(!find_socket_uid(input, false, lo, htons(1), lo, htons(1)).has_value(), "no loopback socket");
    FUZZ_CHECK(!find_socket_uid(input, true, lo, htons(1), lo, htons(1)).has_value(), "no mapped loopback socket");
  }
  return 0;
}
