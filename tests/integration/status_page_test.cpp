// The local status page (`agentworks ui`) in a real browser: Debian's headless Chromium driven over the
// DevTools protocol (tests/browser/cdp_driver.mjs) against real server, bridge and CLI processes in a temp HOME.
// The page's attachments table matches `status --agents --json`, a sent message changes the row's counts without
// a reload, a message's text shows only when asked for, detach asks first and goes through the bridge, and the
// one-time link works once. A screenshot lands in the build tree's artifacts/.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "support/browser_driver.hpp"
#include "support/status_page_process.hpp"
#include "support/bridge_fixture.hpp"
#include "support/crew_fixture.hpp"
#include "testing/wait.hpp"

namespace agentworks::testing {
namespace {

class StatusPageTest : public BridgeTest {
 protected:
  void SetUp() override {
    const auto missing = browser_missing();
    ASSERT_TRUE(missing.empty()) << missing;
    start_server();
    register_agent(owner(), "worker", {"--purpose", "Builds things"});
    start_bridge();
    attach("chat-one", "reviewer", "Reviews incoming work");
    ASSERT_TRUE(wait_connected("chat-one"));
    page_ = std::make_unique<StatusPageProcess>(home_);
    browser_ = std::make_unique<BrowserDriver>(home_.env(), home_.path("browser.err"));
  }
  void TearDown() override {
    if (HasFailure() && browser_) std::cerr << "=== browser driver stderr ===\n" << browser_->stderr_text() << "\n";
    if (HasFailure() && page_) std::cerr << "=== agentworks ui stderr ===\n" << page_->stderr_text() << "\n";
    browser_.reset();
    page_.reset();
    BridgeTest::TearDown();
  }

  // The text of the `col` cell of the row of `session`, "" when there is no such row.
  std::string cell_of(const std::string& session, const std::string& col) {
    return browser_->eval("(() => { const c = document.querySelector('#attachments tr[data-session=\"" + session +
                          "\"] td[data-col=\"" + col + "\"]'); return c ? c.textContent : ''; })()")
        .get<std::string>();
  }

  std::unique_ptr<StatusPageProcess> page_;
  std::unique_ptr<BrowserDriver> browser_;
};

TEST_F(StatusPageTest, ShowsTheBridgeLiveAndDetachesAfterAConfirmation) {
  // The link's token is traded for a cookie and leaves the address bar.
  const auto landed = browser_->navigate(page_->url()).get<std::string>();
  EXPECT_EQ(landed, "http://127.0.0.1:" + std::to_string(page_->port()) + "/");
  browser_->wait("document.querySelectorAll('#attachments tbody tr').length === 1");
  browser_->wait("document.getElementById('live').textContent === 'live'");

  // The table says what `agentworks status --agents --json` says.
  const json status = cli_ok(owner(), {"status", "--agents"});
  const json rows = browser_->eval(
      "[...document.querySelectorAll('#attachments tbody tr')].map(tr => ({agent: tr.dataset.agent, "
      "provider: tr.dataset.provider, session: tr.dataset.session, "
      "pending: tr.querySelector('[data-col=pending]').textContent, "
      "route: tr.querySelector('[data-col=route]').textContent}))");
  ASSERT_EQ(rows.size(), status["attachments"].size()) << status.dump() << "\n" << rows.dump();
  const json& att = status["attachments"][0];
  EXPECT_EQ(rows[0]["agent"], att["agent_name"]);
  EXPECT_EQ(rows[0]["provider"], att["provider"]);
  EXPECT_EQ(rows[0]["session"], att["session_id"]);
  EXPECT_EQ(rows[0]["pending"], std::to_string(att["pending"].get<long>()));
  EXPECT_NE(rows[0]["route"].get<std::string>().find(att["delivery"]["route"].get<std::string>()), std::string::npos);
  EXPECT_EQ(cell_of("chat-one", "pending"), "0");

  // A message arrives: the row's pending count changes in place (the marker proves there was no reload), the
  // delivery is listed, and its text stays hidden until asked for.
  browser_->eval("window.__sameDocument = 1");
  const std::string text = "Please review the parser change";
  const std::string message_id = send(text);
  browser_->wait("document.querySelector('#attachments tr[data-session=\"chat-one\"] td[data-col=pending]')"
                 ".textContent === '1'");
  EXPECT_EQ(browser_->eval("window.__sameDocument === 1"), true);
  browser_->wait("!!document.querySelector('#deliveries tr[data-message=\"" + message_id + "\"]')");
  EXPECT_EQ(browser_->eval("document.body.innerText.includes(" + json(text).dump() + ")"), false);
  browser_->click("#deliveries tr[data-message=\"" + message_id + "\"] button.reveal");
  const auto shown = browser_->wait("(() => { const b = document.querySelector('#deliveries tr[data-message=\"" +
                                    message_id + "\"] .body'); return b ? b.textContent : ''; })()");
  EXPECT_EQ(shown.get<std::string>(), "worker: " + text);

  // Handed out and acknowledged: the counts move on without a reload.
  ASSERT_EQ(take("chat-one")["messages"].size(), 1u);
  browser_->wait("document.querySelector('#attachments tr[data-session=\"chat-one\"] td[data-col=offered]')"
                 ".textContent === '1'");
  call({{"op", "ack"}, {"provider", "claude"}, {"session_id", "chat-one"}, {"message_id", message_id},
        {"delivery", "processed"}});
  browser_->wait("document.querySelector('#attachments tr[data-session=\"chat-one\"] td[data-col=processed]')"
                 ".textContent === '1'");
  EXPECT_EQ(cell_of("chat-one", "pending"), "0");
  EXPECT_EQ(browser_->eval("window.__sameDocument === 1"), true);

  // The chat closes (offline): what is sent meanwhile waits on the server, and the page counts it there, as
  // `status --agents` does, instead of the bridge's 0.
  ASSERT_EQ(call({{"op", "offline"}, {"provider", "claude"}, {"session_id", "chat-one"}}).value("ok", false), true);
  send("first while offline");
  send("second while offline");
  browser_->wait("document.querySelector('#attachments tr[data-session=\"chat-one\"] td[data-col=pending]')"
                 ".textContent === '2 (on the server)'");
  const json offline = cli_ok(owner(), {"status", "--agents"});
  EXPECT_EQ(offline["attachments"][0]["pending"], 2) << offline.dump();
  EXPECT_EQ(offline["attachments"][0]["pending_source"], "server") << offline.dump();
  // The header counts what waits; the state has its colour class; times carry their date.
  browser_->wait("document.getElementById('waiting').textContent.startsWith('2 messages waiting')");
  EXPECT_EQ(browser_->eval("document.querySelector('#attachments tr[data-session=\"chat-one\"] td[data-col=state]')"
                           ".classList.contains('state-offline')"),
            true);
  const std::string received = browser_->eval("document.querySelector('#deliveries tbody tr td:nth-child(4)')"
                                              ".textContent").get<std::string>();
  EXPECT_NE(received.find('/'), std::string::npos) << "a time without its date: " << received;

  std::filesystem::create_directories(AGENTWORKS_ARTIFACT_DIR);
  browser_->screenshot(std::filesystem::path(AGENTWORKS_ARTIFACT_DIR) / "status-page.png");
  EXPECT_GT(std::filesystem::file_size(std::filesystem::path(AGENTWORKS_ARTIFACT_DIR) / "status-page.png"), 1000u);

  // Detach asks first; Cancel changes nothing.
  browser_->click("#attachments tr[data-session=\"chat-one\"] button.detach");
  browser_->wait("document.getElementById('confirm').open");
  browser_->click("#confirm-cancel");
  browser_->wait("!document.getElementById('confirm').open");
  EXPECT_EQ(lookup("claude", "chat-one").value("state", ""), "offline");  // still there, as it was
  // Confirm: the bridge detaches the chat and the row goes.
  browser_->click("#attachments tr[data-session=\"chat-one\"] button.detach");
  browser_->wait("document.getElementById('confirm').open");
  browser_->click("#confirm-ok");
  browser_->wait("document.querySelectorAll('#attachments tbody tr').length === 0");
  EXPECT_EQ(lookup("claude", "chat-one")["attached"], false);
  EXPECT_TRUE(cli_ok(owner(), {"status", "--agents"})["attachments"].empty());
  EXPECT_EQ(browser_->eval("window.__sameDocument === 1"), true);

  // The link was used: opening it again (another tab, another browser) gets nothing of the page.
  const auto again = HttpClient("http://127.0.0.1:" + std::to_string(page_->port())).get(page_->path_and_query());
  EXPECT_EQ(again.status, 403);
  EXPECT_EQ(again.body.find("<table"), std::string::npos);
  // Without the page's cookie: told how to get in, and nothing of the page.
  const auto bare = HttpClient("http://127.0.0.1:" + std::to_string(page_->port())).get("/");
  EXPECT_EQ(bare.status, 403);
  EXPECT_NE(bare.body.find("Run `agentworks ui` again"), std::string::npos) << bare.body;
  EXPECT_EQ(bare.body.find("<table"), std::string::npos);
}

// Function calls show on the page too, with their status as it changes (no bridge needed: the page says it is not
// running and still lists the calls, which come from the server).
class StatusPageCallsTest : public CrewTest {
 protected:
  void TearDown() override {
    if (HasFailure() && browser_) std::cerr << "=== browser driver stderr ===\n" << browser_->stderr_text() << "\n";
    browser_.reset();
    page_.reset();
    CrewTest::TearDown();
  }
  std::unique_ptr<StatusPageProcess> page_;
  std::unique_ptr<BrowserDriver> browser_;
};

TEST_F(StatusPageCallsTest, ListsTheRecentCallsAndTheirStatusLive) {
  const auto missing = browser_missing();
  ASSERT_TRUE(missing.empty()) << missing;
  start_server();
  make_crew("api", json::array({function_decl("hold"), function_decl("broken")}),
            {{"tools/hold.sh", CrewTest::blocking_script()}, {"tools/broken.sh", "echo nothing useful; exit 3"}});
  const std::string call_id = call_ok("api", "hold").at("call_id").get<std::string>();
  const std::string broken_id = call_ok("api", "broken").at("call_id").get<std::string>();
  const json broken = wait_terminal(broken_id);
  ASSERT_EQ(broken.at("status"), "failed") << broken.dump();
  page_ = std::make_unique<StatusPageProcess>(home_);
  browser_ = std::make_unique<BrowserDriver>(home_.env(), home_.path("browser.err"));
  browser_->navigate(page_->url());
  browser_->wait("document.getElementById('bridge').textContent.startsWith('bridge not running')");
  const std::string row = "document.querySelector('#calls tr[data-call=\"" + call_id + "\"]')";
  browser_->wait("!!" + row);
  EXPECT_EQ(browser_->eval(row + ".children[2].textContent"), "hold");
  EXPECT_EQ(browser_->eval(row + ".children[3].textContent"), "running");
  browser_->eval("window.__sameDocument = 1");
  open_gate(crew_dir("api"));
  wait_terminal(call_id);
  browser_->wait(row + ".children[3].textContent === 'completed'");
  EXPECT_EQ(browser_->eval("window.__sameDocument === 1"), true);
  // A failed call says why, with its error code and message, as call-status does.
  const std::string failed_row = "document.querySelector('#calls tr[data-call=\"" + broken_id + "\"]')";
  browser_->wait("!!" + failed_row);
  const std::string detail = browser_->eval(failed_row + ".children[7].textContent").get<std::string>();
  EXPECT_NE(detail.find(broken.at("error").at("code").get<std::string>() + ": "), std::string::npos) << detail;
}

// R-K2: the Crews' conversations with their own agents show on the page, as `crews show` lists them: whom the
// agent talks with, its turn, and what waits (no agent CLI here, so the turn cannot start and reads idle).
TEST_F(StatusPageCallsTest, ListsTheCrewConversations_RK2) {
  const auto missing = browser_missing();
  ASSERT_TRUE(missing.empty()) << missing;
  start_server({}, {{"AGENTWORKS_CLAUDE_BIN", home_.path("no-claude").string()}});
  const auto dir = make_crew_dir("api");
  write_functions(dir, json::array({function_decl("hello")}));
  write_script(dir, "tools/hello.sh", "echo hello");
  write_text(dir / ".agentworks" / "crew.json", R"({"agent": {"claude": {"instructions": "Answer about the api."}}})");
  ASSERT_EQ(register_crew(owner_http(), "api", dir).status, 201);
  register_agent(owner(), "worker");
  const json receipt = http_json(owner_http(), "POST", "/v1/messages",
                                 json{{"target", "crew:api"}, {"message", "hello?"}, {"agent_name", "worker"}}.dump(),
                                 201);
  page_ = std::make_unique<StatusPageProcess>(home_);
  browser_ = std::make_unique<BrowserDriver>(home_.env(), home_.path("browser.err"));
  browser_->navigate(page_->url());
  const std::string row =
      "document.querySelector('#conversations tr[data-inbox=\"" + receipt.at("inbox_id").get<std::string>() + "\"]')";
  browser_->wait("!!" + row);
  EXPECT_EQ(browser_->eval(row + ".children[0].textContent"), "api");
  EXPECT_EQ(browser_->eval(row + ".children[2].textContent"), "worker");
  browser_->wait(row + ".children[3].textContent === 'idle'");
  EXPECT_EQ(browser_->eval("document.querySelector('p.empty[data-for=conversations]').hidden"), true);
}

}  // namespace
}  // namespace agentworks::testing
