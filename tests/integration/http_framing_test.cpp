// Every answer of the server is the JSON error form, whatever arrives on the socket (issue: "libevent answers
// malformed requests with HTML"); the body is looked at only after authentication; a repeated JSON key is refused.
#include <gtest/gtest.h>

#include "support/messaging_fixture.hpp"

namespace agentworks::testing {
namespace {

class HttpFraming : public MessagingTest {
 protected:
  // The answer is a JSON error object with `code`, a message, and Content-Type application/json.
  void expect_json_error(const HttpResponse& r, int status, const std::string& code, const std::string& what) {
    EXPECT_EQ(r.status, status) << what << ": " << describe(r);
    const auto type = r.headers.find("content-type");
    ASSERT_NE(type, r.headers.end()) << what << ": " << describe(r);
    EXPECT_NE(type->second.find("application/json"), std::string::npos) << what << ": " << describe(r);
    const json body = json::parse(r.body, nullptr, false);
    ASSERT_FALSE(body.is_discarded()) << what << ": " << describe(r);
    EXPECT_EQ(error_code_of(r.body), code) << what << ": " << describe(r);
    EXPECT_TRUE(body.contains("error") && body["error"].contains("message") && body["error"]["message"].is_string() &&
                !body["error"]["message"].get<std::string>().empty())
        << what << ": " << describe(r);
  }
  HttpResponse raw(const std::string& bytes) { return HttpClient(server_->url()).send_raw(bytes, std::chrono::seconds(10)); }
};

// Issue: malformed request lines, header abuse, oversize heads and bodies and unknown methods got libevent's HTML.
TEST_F(HttpFraming, MalformedRequestsGetJsonErrors) {
  start_server();
  const std::string ok_line = "GET /v1/health HTTP/1.1\r\n";
  struct Case {
    std::string what;
    std::string bytes;
    int status;
    std::string code;
  };
  const std::vector<Case> cases = {
      {"garbage request line", "THIS IS NOT HTTP\r\n\r\n", 400, "bad_request"},
      {"two spaces in the request line", "GET  /v1/health HTTP/1.1\r\n\r\n", 400, "bad_request"},
      {"unknown HTTP version", "GET /v1/health HTTP/9.9\r\n\r\n", 400, "bad_request"},
      {"no version (HTTP/0.9)", "GET /v1/health\r\n\r\n", 400, "bad_request"},
      {"target not a path", "GET v1/health HTTP/1.1\r\n\r\n", 400, "bad_request"},
      {"control byte in the target", "GET /v1/he\x01lth HTTP/1.1\r\n\r\n", 400, "bad_request"},
      {"unknown method", "BREW /v1/health HTTP/1.1\r\n\r\n", 400, "bad_request"},
      {"method with a bad character", "GE(T /v1/health HTTP/1.1\r\n\r\n", 400, "bad_request"},
      {"header without a colon", ok_line + "NoColonHere\r\n\r\n", 400, "bad_request"},
      {"space before the colon", ok_line + "Host : x\r\n\r\n", 400, "bad_request"},
      {"folded header line", ok_line + "Host: x\r\n  continued\r\n\r\n", 400, "bad_request"},
      {"control byte in a header value", ok_line + "X-A: a\x02z\r\n\r\n", 400, "bad_request"},
      {"bare CR in a header", ok_line + "X-A: a\rb\r\n\r\n", 400, "bad_request"},
      {"huge header", ok_line + "X-Big: " + std::string(70 * 1024, 'a') + "\r\n\r\n", 400, "bad_request"},
      {"too many headers", ok_line + repeat("X-Many: 1\r\n", 150) + "\r\n", 400, "bad_request"},
      {"Content-Length not a number", "POST /v1/messages HTTP/1.1\r\nContent-Length: abc\r\n\r\n", 400, "bad_request"},
      {"two different Content-Lengths", "POST /v1/messages HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
       400, "bad_request"},
      {"chunked request body", "POST /v1/messages HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
       400, "bad_request"},
      {"body over 4 MiB", "POST /v1/messages HTTP/1.1\r\nContent-Length: 5000000\r\n\r\n" + std::string(1024, '{'), 413,
       "payload_too_large"},
      {"body just over 256 KiB", "POST /v1/messages HTTP/1.1\r\nContent-Length: 262145\r\n\r\n", 413,
       "payload_too_large"},
  };
  for (const auto& c : cases) expect_json_error(raw(c.bytes), c.status, c.code, c.what);

  // The server keeps answering, and two pipelined requests on a kept-alive connection are both answered.
  Connection conn(server_->port());
  ASSERT_TRUE(conn.write_all(ok_line + "Host: x\r\n\r\n" + ok_line + "Host: x\r\n\r\n"));
  for (int i = 0; i < 2; ++i) {
    HttpResponse r;
    ASSERT_TRUE(read_response_head(conn, Connection::Clock::now() + std::chrono::seconds(10), r)) << r.error;
    EXPECT_EQ(r.status, 200);
    ASSERT_EQ(r.headers.count("content-length"), 1u);
    const auto text = conn.read_exact(std::stoul(r.headers.at("content-length")),
                                      Connection::Clock::now() + std::chrono::seconds(10));
    ASSERT_TRUE(text.has_value());
    EXPECT_EQ(parse_json(*text).at("ok"), true) << *text;
  }
}

// Issue: "the body is parsed before authentication (an unauthenticated 256 KiB nested body gets 400, not 401)".
TEST_F(HttpFraming, UnauthenticatedBodyIsNotParsed) {
  start_server();
  const std::string nested = std::string(128 * 1024, '[') + std::string(128 * 1024, ']');
  expect_json_error(HttpClient(server_->url()).post("/v1/messages", nested), 401, "unauthenticated",
                    "no token, 256 KiB nested body");
  expect_json_error(HttpClient(server_->url(), "not-a-token").post("/v1/agents", "{not json"), 401, "unauthenticated",
                    "unknown token, malformed body");
  // Authenticated, the same nested body is refused as bad input, and the server is still up.
  expect_json_error(owner_http().post("/v1/messages", nested), 400, "bad_request", "owner, 256 KiB nested body");
  EXPECT_EQ(HttpClient(server_->url()).get("/v1/health").status, 200);
}

// Issue: "duplicate JSON keys are accepted": a repeated key at any depth is bad_request naming the key, and
// nothing is stored.
TEST_F(HttpFraming, DuplicateKeysAreRefusedNamingTheKey) {
  start_server();
  register_agent(owner(), "reviewer");
  register_agent(owner(), "worker");
  const HttpResponse top = owner_http().post("/v1/agents", R"({"agent_name":"first","agent_name":"second"})");
  expect_json_error(top, 400, "bad_request", "repeated top-level key");
  EXPECT_NE(parse_json(top.body)["error"]["message"].get<std::string>().find("'agent_name'"), std::string::npos)
      << describe(top);
  EXPECT_EQ(owner_http().get("/v1/agents/second").status, 404) << "the duplicate-key request registered a name";
  EXPECT_EQ(owner_http().get("/v1/agents/first").status, 404) << "the duplicate-key request registered a name";

  const HttpResponse deep = owner_http().post(
      "/v1/messages",
      R"({"agent_name":"worker","target":"agent:reviewer","message":"hi","meta":{"a":{"depth":1,"depth":2}}})");
  expect_json_error(deep, 400, "bad_request", "repeated nested key");
  EXPECT_NE(parse_json(deep.body)["error"]["message"].get<std::string>().find("'depth'"), std::string::npos)
      << describe(deep);
  EXPECT_TRUE(read_mailbox(owner(), "reviewer").at("messages").empty());

  // A body without a repeated key still works.
  const HttpResponse fine = owner_http().post("/v1/agents", R"({"agent_name":"third"})");
  EXPECT_EQ(fine.status, 201) << describe(fine);
}

}  // namespace
}  // namespace agentworks::testing
