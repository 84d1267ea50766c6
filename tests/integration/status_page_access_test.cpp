// Who gets what from the local status page (`agentworks ui`): nothing without the one-time link or the
// session cookie it was traded for, nothing for another uid's process, nothing through a foreign Host, no action
// without the page's own header and a JSON body; and a fuzz of bad tokens, paths, methods and bytes that never
// yields data or breaks the page for its owner.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <random>
#include <string>

#include "support/status_page_process.hpp"
#include "support/bridge_fixture.hpp"
#include "testing/http_client.hpp"

namespace agentworks::testing {
namespace {

class StatusPageAccessTest : public BridgeTest {
 protected:
  void SetUp() override {
    start_server();
    start_bridge();
    attach("chat-one", "reviewer", "Reviews incoming work");
    page_ = std::make_unique<StatusPageProcess>(home_);
    http_ = std::make_unique<HttpClient>("http://127.0.0.1:" + std::to_string(page_->port()));
  }
  void TearDown() override {
    if (HasFailure() && page_) std::cerr << "=== agentworks ui stderr ===\n" << page_->stderr_text() << "\n";
    page_.reset();
    BridgeTest::TearDown();
  }

  // Spends the link; the session cookie ("name=value").
  std::string log_in() {
    const auto r = http_->get(page_->path_and_query());
    EXPECT_EQ(r.status, 303) << describe(r);
    const auto set = r.headers.count("set-cookie") ? r.headers.at("set-cookie") : std::string();
    EXPECT_NE(set.find("HttpOnly"), std::string::npos) << set;
    EXPECT_NE(set.find("SameSite=Strict"), std::string::npos) << set;
    return set.substr(0, set.find(';'));
  }
  HttpResponse get(const std::string& path, const Headers& headers) { return http_->request("GET", path, {}, headers); }
  HttpResponse action(const std::string& path, const std::string& body, const Headers& headers) {
    return http_->request("POST", path, body, headers);
  }
  std::string raw(const std::string& bytes) { return describe(http_->send_raw(bytes, std::chrono::seconds(15))); }

  std::unique_ptr<StatusPageProcess> page_;
  std::unique_ptr<HttpClient> http_;
};

TEST_F(StatusPageAccessTest, TheLinkWorksOnceAndEverythingElseNeedsItsCookie) {
  EXPECT_EQ(http_->get("/").status, 403);
  EXPECT_EQ(http_->get("/api/state").status, 403);
  EXPECT_EQ(http_->get("/events").status, 403);
  EXPECT_EQ(http_->get("/?token=" + page_->token() + "0").status, 403);
  EXPECT_EQ(http_->get("/?token=" + page_->token().substr(1)).status, 403);
  EXPECT_EQ(http_->get("/?token=").status, 403);

  const std::string cookie = log_in();
  EXPECT_EQ(http_->get(page_->path_and_query()).status, 403) << "the link works once";

  auto page = get("/", {{"Cookie", cookie}});
  EXPECT_EQ(page.status, 200) << describe(page);
  EXPECT_NE(page.body.find("id=\"attachments\""), std::string::npos);
  EXPECT_NE(page.headers["content-security-policy"].find("default-src 'none'"), std::string::npos);
  EXPECT_EQ(get("/app.js", {{"Cookie", cookie}}).status, 200);
  const auto state = get("/api/state", {{"Cookie", cookie}});
  ASSERT_EQ(state.status, 200) << describe(state);
  EXPECT_EQ(json::parse(state.body)["attachments"][0]["agent_name"], "reviewer");

  const std::string wrong = cookie.substr(0, cookie.size() - 1) + (cookie.back() == '0' ? "1" : "0");
  EXPECT_EQ(get("/api/state", {{"Cookie", wrong}}).status, 403);
  EXPECT_EQ(get("/api/state", {{"Cookie", "agentworks_ui_1=" + cookie.substr(cookie.find('=') + 1)}}).status, 403);
  // A page on another origin that resolves to 127.0.0.1 (DNS rebinding) sends its own Host.
  const auto rebound = raw("GET /api/state HTTP/1.1\r\nHost: evil.example:" + std::to_string(page_->port()) +
                           "\r\nCookie: " + cookie + "\r\n\r\n");
  EXPECT_NE(rebound.find("403"), std::string::npos) << rebound;
  EXPECT_EQ(rebound.find("reviewer"), std::string::npos) << rebound;
}

TEST_F(StatusPageAccessTest, ActionsNeedThePagesHeaderAJsonBodyAndTheirOwnOrigin) {
  const std::string cookie = log_in();
  const std::string detach = R"({"provider":"claude","session_id":"chat-one"})";
  EXPECT_EQ(action("/api/detach", detach, {{"Cookie", cookie}}).status, 403);
  EXPECT_EQ(action("/api/detach", detach, {{"Cookie", cookie}, {"X-Agentworks-UI", "1"},
                                           {"Origin", "http://evil.example"}}).status, 403);
  EXPECT_EQ(http_->send_raw("POST /api/detach HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(page_->port()) +
                            "\r\nCookie: " + cookie + "\r\nX-Agentworks-UI: 1\r\nContent-Type: text/plain\r\n"
                            "Content-Length: " + std::to_string(detach.size()) + "\r\n\r\n" + detach).status, 415);
  const Headers ok_headers = {{"Cookie", cookie}, {"X-Agentworks-UI", "1"}};
  const auto not_json = action("/api/detach", "{nope", ok_headers);
  EXPECT_EQ(not_json.status, 400) << describe(not_json);
  EXPECT_EQ(json::parse(not_json.body)["error"]["code"], "bad_request");
  const auto missing = action("/api/detach", R"({"provider":"claude"})", ok_headers);
  EXPECT_EQ(json::parse(missing.body)["error"]["code"], "bad_request") << describe(missing);
  EXPECT_EQ(get("/api/detach", {{"Cookie", cookie}}).status, 405);
  EXPECT_EQ(lookup("claude", "chat-one")["attached"], true) << "a refused action changed something";

  const auto unknown = action("/api/reveal", R"({"message_id":"msg_000000000000000000000000"})", ok_headers);
  EXPECT_EQ(unknown.status, 404) << describe(unknown);
  EXPECT_EQ(json::parse(unknown.body)["error"]["code"], "not_found");

  const auto done = action("/api/detach", detach, ok_headers);
  EXPECT_EQ(done.status, 200) << describe(done);
  EXPECT_EQ(json::parse(done.body)["detached"], true);
  EXPECT_EQ(lookup("claude", "chat-one")["attached"], false);
}

// Show on a delivery: the bridge's copy while the message waits, the server's (read with the person's login) once
// the offer cleared it; both the exact message.
TEST_F(StatusPageAccessTest, RevealShowsOneMessageFromTheBridgeOrOnceOfferedFromTheServer) {
  register_agent(owner(), "worker", {"--purpose", "Builds things"});
  ASSERT_TRUE(wait_connected("chat-one"));
  const std::string first = send("first, still waiting");
  ASSERT_TRUE(wait_pending("chat-one", 1));
  const std::string cookie = log_in();
  const Headers headers = {{"Cookie", cookie}, {"X-Agentworks-UI", "1"}};
  const auto waiting = action("/api/reveal", json{{"message_id", first}}.dump(), headers);
  ASSERT_EQ(waiting.status, 200) << describe(waiting);
  EXPECT_EQ(json::parse(waiting.body)["source"], "bridge");
  EXPECT_EQ(json::parse(waiting.body)["message"]["message"], "first, still waiting");

  const std::string second = send("second, offered");
  ASSERT_TRUE(wait_pending("chat-one", 2));
  ASSERT_EQ(take("chat-one")["messages"].size(), 2u);
  const auto offered = action("/api/reveal", json{{"message_id", second}}.dump(), headers);
  ASSERT_EQ(offered.status, 200) << describe(offered);
  EXPECT_EQ(json::parse(offered.body)["source"], "server");
  EXPECT_EQ(json::parse(offered.body)["message"]["message_id"], second);
  EXPECT_EQ(json::parse(offered.body)["message"]["message"], "second, offered");
  EXPECT_EQ(json::parse(offered.body)["message"]["sender"]["agent_name"], "worker");
}

TEST_F(StatusPageAccessTest, MalformedRequestsGetAClearRefusal) {
  const std::string host = "Host: 127.0.0.1:" + std::to_string(page_->port()) + "\r\n";
  using namespace std::string_literals;  // the TLS hello holds NUL bytes
  EXPECT_NE(raw("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n"s).find("400"), std::string::npos);
  EXPECT_NE(raw("GET /\r\n\r\n").find("400"), std::string::npos);
  EXPECT_NE(raw("GET / HTTP/1.1\r\n" + host + "X-Big: " + std::string(20000, 'a') + "\r\n\r\n").find("431"),
            std::string::npos);
  EXPECT_NE(raw("POST /api/cleanup HTTP/1.1\r\n" + host + "Content-Length: 1000000000\r\n\r\n").find("413"),
            std::string::npos);
  EXPECT_NE(raw("POST /api/cleanup HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n").find("400"),
            std::string::npos);
  EXPECT_NE(raw("GET http://127.0.0.1/ HTTP/1.1\r\n" + host + "\r\n").find("400"), std::string::npos);
}

// A seeded fuzz of methods, paths, tokens, cookies and Host headers: 200 only for the page's own GETs with the
// right cookie and Host; nothing else carries data; the owner's page still answers afterwards.
TEST_F(StatusPageAccessTest, FuzzedRequestsNeverGetData) {
  const std::string cookie = log_in();
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  const std::vector<std::string> methods = {"GET", "POST", "PUT", "DELETE", "OPTIONS", "HEAD", "TRACE", "G€T",
                                            std::string(300, 'M')};
  const std::vector<std::string> paths = {"/", "/?token=", "/?token=" + page_->token(), "/?token=%zz", "/api/state",
                                          "/api/detach", "/api/cleanup", "/api/reveal", "/events", "/app.js",
                                          "/app.css", "/index.html", "/%2e%2e/etc/passwd", "/../../etc/passwd",
                                          "//api/state", "/api/state/", "/API/STATE", "/app.js%00", "*",
                                          "/" + std::string(3000, 'x')};
  const std::string session = cookie.substr(cookie.find('=') + 1);
  const std::vector<std::string> cookies = {"", cookie, cookie + "x", "x" + cookie, "agentworks_ui=" + session,
                                            cookie.substr(0, cookie.find('=') + 1)};
  const std::string port = std::to_string(page_->port());
  const std::vector<std::string> hosts = {"127.0.0.1:" + port, "localhost:" + port, "127.0.0.1", "evil:" + port, ""};
  for (int i = 0; i < 300; ++i) {
    const auto& method = methods[rng() % methods.size()];
    const auto& path = paths[rng() % paths.size()];
    const auto& c = cookies[rng() % cookies.size()];
    const auto& h = hosts[rng() % hosts.size()];
    std::string request = method + " " + path + " HTTP/1.1\r\n";
    if (!h.empty()) request += "Host: " + h + "\r\n";
    if (!c.empty()) request += "Cookie: " + c + "\r\n";
    if (rng() % 3 == 0) request += "Content-Length: 2\r\n\r\n{}";
    else request += "\r\n";
    const bool own_get = method == "GET" && c == cookie && (h == hosts[0] || h == hosts[1]) &&
                         (path == "/" || path == "/api/state" || path == "/app.js" || path == "/app.css" ||
                          path == "/index.html" || path == "/events");
    if (path == "/events" && own_get) continue;  // a stream that stays open: the browser test reads it
    const auto r = http_->send_raw(request, std::chrono::seconds(15));
    const std::string what = request.substr(0, 200) + " -> " + describe(r).substr(0, 300);
    if (own_get) {
      EXPECT_EQ(r.status, 200) << what;
    } else {
      EXPECT_NE(r.status, 200) << what;
      EXPECT_EQ(r.body.find("reviewer"), std::string::npos) << what;
      EXPECT_EQ(r.body.find("<table"), std::string::npos) << what;
    }
  }
  EXPECT_EQ(get("/api/state", {{"Cookie", cookie}}).status, 200);
  EXPECT_EQ(lookup("claude", "chat-one")["attached"], true);
}

// A process of another uid that holds the link still gets nothing: not a status line, not a byte, and the link
// stays unspent for its owner. Needs root to become another uid.
TEST_F(StatusPageAccessTest, AnotherUsersProcessGetsNothingEvenWithTheLink) {
  if (::geteuid() != 0) GTEST_SKIP() << "running a process as another uid needs root (CI runs as root)";
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const std::string request = "GET " + page_->path_and_query() + " HTTP/1.1\r\nHost: 127.0.0.1:" +
                              std::to_string(page_->port()) + "\r\n\r\n";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(fds[0]);
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(90);
    long got = -1;
    try {
      Connection conn(page_->port());
      conn.write_all(request);
      got = static_cast<long>(conn.read_to_eof(std::chrono::steady_clock::now() + std::chrono::seconds(10)).size());
    } catch (...) {
      got = -2;
    }
    [[maybe_unused]] auto n = ::write(fds[1], &got, sizeof got);
    ::_exit(0);
  }
  ::close(fds[1]);
  long got = -3;
  ASSERT_EQ(::read(fds[0], &got, sizeof got), static_cast<ssize_t>(sizeof got));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_EQ(got, 0) << "another uid's process read " << got << " bytes";
  log_in();  // the link still works for its owner
}

TEST_F(StatusPageAccessTest, StopsOnSigtermAndSaysWhetherTheLinkWasUsed) {
  log_in();
  EXPECT_EQ(page_->stop(), 0) << page_->stderr_text();
  const auto last = page_->next_line(std::chrono::seconds(5));
  ASSERT_TRUE(last.has_value()) << "no line after the listening one: " << page_->transcript();
  const auto j = json::parse(*last);
  EXPECT_EQ(j["stopped"], true);
  EXPECT_EQ(j["link_used"], true);
}

}  // namespace
}  // namespace agentworks::testing
