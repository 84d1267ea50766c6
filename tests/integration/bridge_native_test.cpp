// Native push through the real bridge and server, with stand-in provider processes
// (fake_provider/main.cpp): a fake Claude session inbox (registration, key file, socket) and a fake `codex`
// executable bound through /proc/PID/exe. What is proven here: the exact binding (R-N1), offer before write and
// the outcome rules (R-N2, R-B14, R-B16), fail-closed checks (R-N3), the person's switches, bursts becoming
// fewer pushes, and that the Stop hook never delivers a pushed message again. The real CLIs are driven in
// tests/e2e (claude_native_e2e_test.cpp, codex_queue_e2e_test.cpp).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "agentworks/process_ancestry.hpp"
#include "testing/binaries.hpp"
#include "testing/bridge_client.hpp"
#include "testing/bridge_process.hpp"
#include "testing/temp_home.hpp"
#include "testing/wait.hpp"
#include "support/bridge_fixture.hpp"

namespace agentworks::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kThread = "0199aa11-2233-7444-8555-666677778888";

// The complete lines only: the fake peers append while a test reads, so a last line without its newline is still
// being written.
std::vector<json> json_lines(const fs::path& file) {
  std::vector<json> out;
  std::string text = read_file(file);
  text.erase(text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1);
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(json::parse(line));
  }
  return out;
}

class BridgeNativeTest : public BridgeTest {
 protected:
  void SetUp() override {
    start_server({"--heartbeat-seconds", "1"});
    register_agent(owner(), "worker");
    notify_record_ = home_.path("notify-args.txt");
    const auto script = home_.path("notify.sh");
    std::ofstream(script) << "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done >> '"
                          << notify_record_.string() << "'\n";
    ::chmod(script.c_str(), 0755);
    bridge_env_ = {{"AGENTWORKS_NOTIFY_COMMAND", script.string()}, {"AGENTWORKS_NOTIFY_AFTER_MS", "600000"}};
    start_bridge(bridge_env_);
  }
  void restart_bridge(EnvOverrides extra = {}) {
    if (bridge_) bridge_->stop();
    start_bridge(merge_env(bridge_env_, extra));
  }

  // A fake provider process; its key is what the hook would report.
  json start_provider(const std::vector<std::string>& args, const std::string& tag,
                      const std::string& executable = AGENTWORKS_FAKE_PROVIDER_BIN) {
    std::vector<std::string> argv = {executable};
    argv.insert(argv.end(), args.begin(), args.end());
    providers_.push_back(Child::start(argv, home_.env(), home_.path(tag + ".out"), home_.path(tag + ".err")));
    const pid_t pid = providers_.back().pid();
    std::optional<process::ProcessKey> key;
    EXPECT_TRUE(wait_until([&] { return (key = process::key_of(pid)).has_value(); }));
    return {{"pid", pid}, {"start", key ? key->start : ""}};
  }
  json start_codex(const std::string& tag = "codex") {
    codex_home_ = home_.path(tag + "-home");
    fs::create_directories(codex_home_);
    // Named `codex`, as the bridge requires of a process it runs (a copy: /proc/PID/exe resolves links).
    const fs::path exe = home_.path(tag + "-bin") / "codex";
    fs::create_directories(exe.parent_path());
    fs::copy_file(AGENTWORKS_FAKE_PROVIDER_BIN, exe, fs::copy_options::overwrite_existing);
    return start_provider({"serve"}, tag, exe.string());
  }
  // A fake Claude session whose registration names `session` (or `registered_session` when it differs).
  json start_claude(const std::string& session, const std::string& version = "2.1.332",
                    const std::string& tag = "claude") {
    claude_home_ = home_.path("claude-config");
    claude_socket_ = home_.path("cc-socks") / (tag + ".sock");
    claude_record_ = home_.path(tag + "-frames.jsonl");
    auto key = start_provider({"claude", (claude_home_ / "sessions").string(), session, claude_socket_.string(),
                               claude_record_.string(), version},
                              tag);
    EXPECT_TRUE(wait_until([&] { return providers_.back().read_stdout().find("ready") != std::string::npos; }));
    return key;
  }

  json attach(const std::string& provider, const std::string& session, const json& process,
              const std::string& home, json extra = json::object()) {
    json req = {{"op", "command"}, {"provider", provider}, {"session_id", session}, {"verb", "attach"},
                {"name", "reviewer"}, {"purpose", "Review PRs"}, {"process", process}, {"provider_home", home}};
    for (auto& [k, v] : extra.items()) req[k] = v;
    const json a = call(req);
    if (a.value("ok", false) != true) throw std::runtime_error("attach failed: " + a.dump());
    return a;
  }
  // An empty object (not null) when the bridge has no row: the tests read it with value().
  json status_of(const std::string& session) { return BridgeTest::status_of(session, json::object()); }
  json delivery_of(const std::string& session) { return status_of(session).value("delivery", json::object()); }
  bool wait_route(const std::string& session, bool native) {
    return wait_until([&] {
      const auto d = delivery_of(session);
      return d.value("native", !native) == native && !d.value("checking", false);
    }, std::chrono::seconds(20));
  }
  json counts(const std::string& session) {
    const auto s = status_of(session);
    return {{"pending", s.value("pending", -1)}, {"offered", s.value("offered_not_admitted", -1)}};
  }
  // A Stop hook of the session, as the hook sends it (with the provider's home variable).
  json deliver(const std::string& provider, const std::string& session, const json& process) {
    const auto home = provider == "claude" ? claude_home_ : codex_home_;
    return call({{"op", "deliver"}, {"provider", provider}, {"session_id", session}, {"process", process},
                 {"provider_home", home.string()}});
  }
  // an offer that may not have arrived is never handed out again, but the Stop hook's next delivery
  // tells the chat once, by id (never the body); the one after is quiet.
  void expect_told_once(const std::string& provider, const std::string& session, const json& process,
                        const std::string& id, const std::string& body) {
    const auto told = deliver(provider, session, process);
    const std::string text = told.value("text", "");
    EXPECT_TRUE(told["message_ids"].empty()) << told.dump();
    EXPECT_NE(text.find("may not have arrived"), std::string::npos) << text;
    EXPECT_NE(text.find(id), std::string::npos) << text;
    EXPECT_EQ(text.find(body), std::string::npos) << text;
    EXPECT_EQ(deliver(provider, session, process).value("text", "x"), "");
  }
  json receipt(const std::string& message_id) {
    return http_json(owner_http(), "GET", "/v1/messages/" + message_id + "/receipt", std::nullopt, 200);
  }

  std::vector<Child> providers_;
  EnvOverrides bridge_env_;
  fs::path notify_record_;
  fs::path codex_home_;
  fs::path claude_home_;
  fs::path claude_socket_;
  fs::path claude_record_;
};

// R-N2: `codex queue` exit 0 is native queue admission: one queued item with the delivered text, the
// receipt says admitted via codex-queue (never processed), and the Stop hook does not deliver it again.
TEST_F(BridgeNativeTest, CodexQueueAdmitsAndStopHookDoesNotRedeliver_RN2) {
  const auto proc = start_codex();
  attach("codex", kThread, proc, codex_home_.string());
  ASSERT_TRUE(wait_route(kThread, true)) << delivery_of(kThread).dump();
  EXPECT_EQ(delivery_of(kThread)["route"], "codex-queue");
  ASSERT_TRUE(wait_connected(kThread));

  const auto id = send("please review PR 7");
  const auto queued = codex_home_ / "queued.jsonl";
  ASSERT_TRUE(wait_until([&] { return json_lines(queued).size() == 1; }, std::chrono::seconds(20))) << bridge_->log();
  const auto item = json_lines(queued)[0];
  EXPECT_EQ(item["thread"], kThread);
  EXPECT_NE(item["message"].get<std::string>().find(id), std::string::npos);
  EXPECT_NE(item["message"].get<std::string>().find("please review PR 7"), std::string::npos);
  ASSERT_TRUE(wait_until([&] { return receipt(id)["delivery"].value("state", "") == "admitted"; },
                         std::chrono::seconds(20)));
  EXPECT_EQ(receipt(id)["delivery"].value("via", ""), "codex-queue");
  // The Stop of the turn it woke never delivers it again; it only asks about it, by id (R-X3).
  const json stop = deliver("codex", kThread, proc);
  EXPECT_TRUE(stop["message_ids"].empty()) << stop.dump();
  EXPECT_NE(stop.value("text", "").find("this turn received " + id), std::string::npos) << stop.dump();
  EXPECT_EQ(stop.value("text", "").find("please review PR 7"), std::string::npos) << stop.dump();
  EXPECT_EQ(json_lines(queued).size(), 1u);
}

// R-N2: a definite refusal before queueing (thread not found) returns the message to pending; the route turns
// off with the reason and the Stop hook delivers it.
TEST_F(BridgeNativeTest, CodexRefusalReturnsToPendingForStopHook_RN2_RN3) {
  const auto proc = start_codex();
  std::ofstream(codex_home_ / "outcome") << "missing\n";
  attach("codex", kThread, proc, codex_home_.string());
  ASSERT_TRUE(wait_route(kThread, true));
  ASSERT_TRUE(wait_connected(kThread));
  const auto id = send("refused first");
  ASSERT_TRUE(wait_until([&] { return !delivery_of(kThread).value("native", true); }, std::chrono::seconds(20)))
      << bridge_->log();
  EXPECT_NE(delivery_of(kThread)["reason"].get<std::string>().find("thread not found"), std::string::npos)
      << delivery_of(kThread).dump();
  EXPECT_EQ(counts(kThread)["pending"], 1);
  const auto d = deliver("codex", kThread, proc);
  EXPECT_NE(d.value("text", "").find(id), std::string::npos) << d.dump();
  EXPECT_EQ(receipt(id)["delivery"].value("state", ""), "stored");
}

// R-N2, R-B14: an ambiguous outcome (the command failed in an unknown way) keeps the message offered, is never
// run again, and tells the person by agent name only.
TEST_F(BridgeNativeTest, CodexAmbiguousKeepsOfferedAndNotifies_RN2_RB14) {
  const auto proc = start_codex();
  std::ofstream(codex_home_ / "outcome") << "crash\n";
  attach("codex", kThread, proc, codex_home_.string());
  ASSERT_TRUE(wait_route(kThread, true));
  ASSERT_TRUE(wait_connected(kThread));
  const auto id = send("SECRET-BODY-51 ambiguous");
  ASSERT_TRUE(wait_until([&] { return read_file(notify_record_).find("reviewer") != std::string::npos; },
                         std::chrono::seconds(20)))
      << bridge_->log();
  EXPECT_EQ(read_file(notify_record_).find("SECRET-BODY"), std::string::npos);
  EXPECT_EQ(counts(kThread), json({{"pending", 0}, {"offered", 1}}));
  expect_told_once("codex", kThread, proc, id, "SECRET-BODY");
  EXPECT_NE(delivery_of(kThread).value("last", "").find("uncertain"), std::string::npos);
}

// R-N3: a Codex without the queue command, or of a version not checked, keeps the Stop hook.
TEST_F(BridgeNativeTest, CodexWithoutQueueOrUnknownVersionFallsBack_RN3) {
  const auto proc = start_codex();
  std::ofstream(codex_home_ / "no-queue") << "";
  attach("codex", kThread, proc, codex_home_.string());
  ASSERT_TRUE(wait_route(kThread, false));
  EXPECT_NE(delivery_of(kThread)["reason"].get<std::string>().find("no queue command"), std::string::npos)
      << delivery_of(kThread).dump();
  fs::remove(codex_home_ / "no-queue");
  std::ofstream(codex_home_ / "version") << "0.150.0\n";
  attach("codex", kThread, proc, codex_home_.string());  // the same attach again re-checks
  ASSERT_TRUE(wait_route(kThread, false));
  EXPECT_NE(delivery_of(kThread)["reason"].get<std::string>().find("0.150.0"), std::string::npos);
  ASSERT_TRUE(wait_connected(kThread));
  const auto id = send("to the stop hook");
  ASSERT_TRUE(wait_until([&] { return counts(kThread)["pending"] == 1; }, std::chrono::seconds(20)));
  EXPECT_NE(deliver("codex", kThread, proc).value("text", "").find(id), std::string::npos);
  EXPECT_FALSE(fs::exists(codex_home_ / "queued.jsonl"));
}

// --native-remote must be unix:///ABSOLUTE; a bad one is refused and nothing is attached.
TEST_F(BridgeNativeTest, CodexRemoteMustBeAbsoluteUnixSocket) {
  const auto proc = start_codex();
  json req = {{"op", "command"}, {"provider", "codex"}, {"session_id", kThread}, {"verb", "attach"},
              {"name", "reviewer"}, {"process", proc}, {"native_remote", "unix://relative/sock"}};
  const auto a = call(req);
  ASSERT_TRUE(a.contains("error")) << a.dump();
  EXPECT_EQ(a["error"]["code"], "bad_request");
  EXPECT_TRUE(status_of(kThread).empty());
  attach("codex", kThread, proc, codex_home_.string(), {{"native_remote", "unix:///run/codex/app.sock"}});
  ASSERT_TRUE(wait_route(kThread, true));
  ASSERT_TRUE(wait_connected(kThread));
  send("via the remote");
  ASSERT_TRUE(wait_until([&] { return json_lines(codex_home_ / "queued.jsonl").size() == 1; },
                         std::chrono::seconds(20)));
  EXPECT_EQ(json_lines(codex_home_ / "queued.jsonl")[0]["remote"], "unix:///run/codex/app.sock");
}

// R-N2, R-B16: the frame goes to the exact session with priority "next" and the delivered text; the
// message stays offered (a write is an offer, never admitted), and the Stop hook does not deliver it again.
TEST_F(BridgeNativeTest, ClaudeInboxGetsOneNextFrame_RN2_RB16_RN4) {
  const std::string session = "c1a0de00-0000-4000-8000-000000000001";
  const auto proc = start_claude(session);
  const auto a = attach("claude", session, proc, claude_home_.string());
  EXPECT_NE(a.value("text", "").find("session inbox"), std::string::npos) << a.dump();
  ASSERT_TRUE(wait_route(session, true)) << delivery_of(session).dump();
  EXPECT_EQ(delivery_of(session)["route"], "claude-inbox");
  ASSERT_TRUE(wait_connected(session));

  const auto id = send("wake up and review");
  ASSERT_TRUE(wait_until([&] { return json_lines(claude_record_).size() == 1; }, std::chrono::seconds(20)))
      << bridge_->log();
  std::istringstream frames(json_lines(claude_record_)[0]["frames"].get<std::string>());
  std::string auth_line, user_line;
  std::getline(frames, auth_line);
  std::getline(frames, user_line);
  const auto auth = json::parse(auth_line);
  const auto user = json::parse(user_line);
  EXPECT_EQ(auth, json({{"type", "auth"}, {"token", "fake-peer-token"}}));
  EXPECT_EQ(user["type"], "user");
  EXPECT_EQ(user["priority"], "next");
  EXPECT_EQ(user["session_id"], session);
  const auto content = user["message"]["content"].get<std::string>();
  EXPECT_NE(content.find(id), std::string::npos);
  EXPECT_NE(content.find("wake up and review"), std::string::npos);
  EXPECT_NE(content.find("NOT instructions from the person"), std::string::npos) << content;

  EXPECT_EQ(counts(session), json({{"pending", 0}, {"offered", 1}}));
  EXPECT_EQ(receipt(id)["delivery"].value("state", ""), "stored");  // R-B16: not admitted by the write
  // The Stop of the turn it woke never delivers it again; it only asks about it, by id (R-X3).
  const json stop = deliver("claude", session, proc);
  EXPECT_TRUE(stop["message_ids"].empty()) << stop.dump();
  EXPECT_NE(stop.value("text", "").find("this turn received " + id), std::string::npos) << stop.dump();
  EXPECT_EQ(stop.value("text", "").find("wake up and review"), std::string::npos) << stop.dump();
}

// R-N1, R-N3: a registration whose sessionId is another session, or a Claude Code without the inbox (2.1.197),
// is refused: the route stays off with the reason, nothing is written, and the Stop hook delivers.
TEST_F(BridgeNativeTest, ClaudeMismatchedOrOldRegistrationIsRefused_RN1_RN3) {
  const std::string session = "c1a0de00-0000-4000-8000-000000000002";
  const auto other = start_claude("c1a0de00-0000-4000-8000-0000000000ff", "2.1.332", "other");
  attach("claude", session, other, claude_home_.string());
  ASSERT_TRUE(wait_route(session, false));
  EXPECT_NE(delivery_of(session)["reason"].get<std::string>().find("sessionId"), std::string::npos)
      << delivery_of(session).dump();

  const auto old = start_claude(session, "2.1.197", "old");
  attach("claude", session, old, claude_home_.string());
  ASSERT_TRUE(wait_route(session, false));
  EXPECT_NE(delivery_of(session)["reason"].get<std::string>().find("2.1.197"), std::string::npos)
      << delivery_of(session).dump();
  const auto status = call({{"op", "command"}, {"provider", "claude"}, {"session_id", session}, {"verb", "status"},
                            {"process", old}});
  EXPECT_NE(status.value("text", "").find("end of each turn"), std::string::npos) << status.dump();

  ASSERT_TRUE(wait_connected(session));
  const auto id = send("for the stop hook");
  ASSERT_TRUE(wait_until([&] { return counts(session)["pending"] == 1; }, std::chrono::seconds(20)));
  EXPECT_NE(deliver("claude", session, old).value("text", "").find(id), std::string::npos);
  EXPECT_TRUE(json_lines(claude_record_).empty());
  EXPECT_TRUE(json_lines(home_.path("other-frames.jsonl")).empty());
}

// R-N2: the session's socket is gone when the push comes (a definite failure before writing): the message goes
// back to pending and the Stop hook delivers it.
TEST_F(BridgeNativeTest, ClaudeSocketGoneReturnsToPending_RN2) {
  const std::string session = "c1a0de00-0000-4000-8000-000000000003";
  const auto proc = start_claude(session);
  attach("claude", session, proc, claude_home_.string());
  ASSERT_TRUE(wait_route(session, true));
  ASSERT_TRUE(wait_connected(session));
  fs::remove(claude_socket_);
  const auto id = send("socket is gone");
  ASSERT_TRUE(wait_until([&] { return !delivery_of(session).value("native", true); }, std::chrono::seconds(20)))
      << bridge_->log();
  EXPECT_EQ(counts(session)["pending"], 1);
  EXPECT_NE(deliver("claude", session, proc).value("text", "").find(id), std::string::npos);
}

// R-N2, R-B14: a session that takes the frame but never closes: ambiguous after the timeout, stays offered, the
// person is told (agent name only), and it is never written again.
TEST_F(BridgeNativeTest, ClaudeNoAnswerIsAmbiguous_RN2_RB14) {
  const std::string session = "c1a0de00-0000-4000-8000-000000000004";
  const auto proc = start_claude(session);
  std::ofstream(claude_record_.string() + ".hang") << "";
  attach("claude", session, proc, claude_home_.string());
  ASSERT_TRUE(wait_route(session, true));
  ASSERT_TRUE(wait_connected(session));
  const auto id = send("SECRET-BODY-77 hanging");
  ASSERT_TRUE(wait_until([&] { return read_file(notify_record_).find("reviewer") != std::string::npos; },
                         std::chrono::seconds(30)))
      << bridge_->log();
  EXPECT_EQ(read_file(notify_record_).find("SECRET-BODY"), std::string::npos);
  EXPECT_EQ(counts(session), json({{"pending", 0}, {"offered", 1}}));
  expect_told_once("claude", session, proc, id, "SECRET-BODY");
}

// a restarted Claude process of the same session is bound anew at its next hook event (never carried
// over); the old registration is never written to again.
TEST_F(BridgeNativeTest, ClaudeRestartRebindsAtNextHookEvent_RN1) {
  const std::string session = "c1a0de00-0000-4000-8000-000000000005";
  const auto first = start_claude(session, "2.1.332", "first");
  attach("claude", session, first, claude_home_.string());
  ASSERT_TRUE(wait_route(session, true));
  providers_.back().kill_and_wait();
  const auto second = start_claude(session, "2.1.332", "second");
  // The next hook event of the session (a Stop with nothing waiting) comes from the new process.
  call({{"op", "deliver"}, {"provider", "claude"}, {"session_id", session}, {"process", second},
        {"provider_home", claude_home_.string()}});
  ASSERT_TRUE(wait_route(session, true));
  ASSERT_TRUE(wait_connected(session));
  const auto id = send("after the restart");
  ASSERT_TRUE(wait_until([&] { return json_lines(home_.path("second-frames.jsonl")).size() == 1; },
                         std::chrono::seconds(20)))
      << bridge_->log();
  EXPECT_NE(json_lines(home_.path("second-frames.jsonl"))[0]["frames"].get<std::string>().find(id),
            std::string::npos);
  EXPECT_TRUE(json_lines(home_.path("first-frames.jsonl")).empty());
}

// a bridge (re)start binds the routes of attached sessions whose process still runs, and messages that
// arrived while it was down are pushed.
TEST_F(BridgeNativeTest, BridgeStartBindsAndPushesWhatArrivedMeanwhile) {
  const std::string session = "c1a0de00-0000-4000-8000-000000000008";
  const auto proc = start_claude(session);
  attach("claude", session, proc, claude_home_.string());
  ASSERT_TRUE(wait_route(session, true));
  ASSERT_EQ(bridge_->stop(), 0);
  const auto id = send("while the bridge was down");
  restart_bridge();
  ASSERT_TRUE(wait_until([&] { return json_lines(claude_record_).size() == 1; }, std::chrono::seconds(20)))
      << bridge_->log();
  EXPECT_NE(json_lines(claude_record_)[0]["frames"].get<std::string>().find(id), std::string::npos);
  EXPECT_EQ(delivery_of(session)["route"], "claude-inbox");
}

// R-N2, R-B6, invariant 1: the bridge killed right after the offer was persisted, before the write: after the
// restart the message stays offered and is never written (ambiguous: readable explicitly), nor given to the hook.
TEST_F(BridgeNativeTest, KilledBetweenOfferAndWriteNeverPushesAgain_RN2_RB6) {
  if (!programs_have_failpoints()) GTEST_SKIP() << "built without failpoints (the asan and debug presets have them)";
  const std::string session = "c1a0de00-0000-4000-8000-000000000009";
  const auto proc = start_claude(session);
  restart_bridge({{"AGENTWORKS_FAILPOINT", "bridge.after_offer_commit"}});
  attach("claude", session, proc, claude_home_.string());
  ASSERT_TRUE(wait_route(session, true));
  ASSERT_TRUE(wait_connected(session));
  const auto id = send("exactly once or not at all");
  ASSERT_TRUE(bridge_->child().wait_exit(std::chrono::seconds(20)).has_value()) << "the failpoint did not fire";
  bridge_.reset();
  start_bridge(bridge_env_);
  ASSERT_TRUE(wait_route(session, true));
  ASSERT_TRUE(wait_connected(session));
  EXPECT_EQ(counts(session), json({{"pending", 0}, {"offered", 1}}));
  expect_told_once("claude", session, proc, id, "exactly once or not at all");
  const auto later = send("after the restart");
  ASSERT_TRUE(wait_until([&] { return json_lines(claude_record_).size() == 1; }, std::chrono::seconds(20)))
      << bridge_->log();
  const auto frames = json_lines(claude_record_)[0]["frames"].get<std::string>();
  EXPECT_NE(frames.find(later), std::string::npos);
  EXPECT_EQ(frames.find(id), std::string::npos);
}

// a flood becomes fewer, larger frames within Claude's inbound limits, and every message is in exactly
// one frame. The flood is made independent of how fast the test sends: 30 messages wait on the server while the
// bridge is down and arrive together when it catches up. Pushes gather for 25 ms, carry up to 20 messages each
// and are bounded by the token bucket (8 at once, one more per 2 s): the catch-up takes a handful of frames, not 30.
TEST_F(BridgeNativeTest, ClaudeFloodBecomesFewFrames) {
  const std::string session = "c1a0de00-0000-4000-8000-000000000006";
  const auto proc = start_claude(session);
  attach("claude", session, proc, claude_home_.string());
  ASSERT_TRUE(wait_route(session, true));
  ASSERT_EQ(bridge_->stop(), 0);
  std::vector<std::string> ids;
  for (int i = 0; i < 30; ++i) ids.push_back(send("flood " + std::to_string(i)));
  restart_bridge();
  ASSERT_TRUE(wait_until([&] { return counts(session) == json({{"pending", 0}, {"offered", 30}}); },
                         std::chrono::seconds(60)))
      << counts(session).dump() << bridge_->log();
  ASSERT_TRUE(wait_until([&] {
    std::size_t found = 0;
    for (const auto& f : json_lines(claude_record_)) {
      for (const auto& id : ids) if (f["frames"].get<std::string>().find(id) != std::string::npos) ++found;
    }
    return found == ids.size();
  }, std::chrono::seconds(20)));
  std::string all;
  for (const auto& f : json_lines(claude_record_)) all += f["frames"].get<std::string>();
  for (const auto& id : ids) {
    const auto first = all.find("--- message " + id + " from");
    EXPECT_NE(first, std::string::npos) << id;
    EXPECT_EQ(all.find("--- message " + id + " from", first + 1), std::string::npos) << id << " twice";
  }
  EXPECT_LT(json_lines(claude_record_).size(), 12u);
}

// the person turns native push off per attachment (attach --no-native) or in the config.
TEST_F(BridgeNativeTest, PersonTurnsNativeOff) {
  const std::string session = "c1a0de00-0000-4000-8000-000000000007";
  const auto proc = start_claude(session);
  attach("claude", session, proc, claude_home_.string(), {{"native", false}});
  ASSERT_TRUE(wait_route(session, false));
  EXPECT_NE(delivery_of(session)["reason"].get<std::string>().find("--no-native"), std::string::npos);

  // Globally: `agentworks native off` ("native": false in the saved login).
  EXPECT_EQ(cli_ok(owner(), {"native", "off"})["native"], false);
  EXPECT_EQ(cli_ok(owner(), {"native"})["native"], false);
  attach("claude", session, proc, claude_home_.string());
  ASSERT_TRUE(wait_route(session, false));
  EXPECT_NE(delivery_of(session)["reason"].get<std::string>().find("config"), std::string::npos)
      << delivery_of(session).dump();
  ASSERT_TRUE(wait_connected(session));
  send("not pushed");
  ASSERT_TRUE(wait_until([&] { return counts(session)["pending"] == 1; }, std::chrono::seconds(20)));
  EXPECT_TRUE(json_lines(claude_record_).empty());
}

// R-X3: a message pushed into an idle chat is its new turn's, and that turn's silent end asks about it; one pushed
// while the chat is in a turn the person typed queues behind it (Claude runs it right after), so that turn's end
// asks nothing and the end of the turn it woke does.
TEST_F(BridgeNativeTest, APushIsAskedAboutAtTheEndOfTheTurnThatSawIt_RX3) {
  const std::string session = "c1a0de00-0000-4000-8000-000000000008";
  const auto proc = start_claude(session);
  attach("claude", session, proc, claude_home_.string());
  ASSERT_TRUE(wait_route(session, true)) << delivery_of(session).dump();
  ASSERT_TRUE(wait_connected(session));
  const auto stop = [&](bool active) {
    return call({{"op", "deliver"}, {"provider", "claude"}, {"session_id", session}, {"process", proc},
                 {"provider_home", claude_home_.string()}, {"stop_hook_active", active}});
  };
  const auto asked = [&](const json& answer, const std::string& id) {
    return answer.value("text", "").find("this turn received " + id + " from") != std::string::npos;
  };
  EXPECT_EQ(stop(false).value("text", "x"), "");  // the bridge sees the chat idle

  const auto woke = send("wake up and review");
  ASSERT_TRUE(wait_until([&] { return json_lines(claude_record_).size() == 1; }, std::chrono::seconds(20)))
      << bridge_->log();
  const json first_end = stop(false);
  EXPECT_TRUE(asked(first_end, woke)) << first_end.dump();
  EXPECT_EQ(stop(true).value("text", "x"), "");

  const json typed = call({{"op", "turn_start"}, {"provider", "claude"}, {"session_id", session}});
  EXPECT_EQ(typed.value("attached", false), true) << typed.dump();
  const auto queued = send("one more thing");
  ASSERT_TRUE(wait_until([&] { return json_lines(claude_record_).size() == 2; }, std::chrono::seconds(20)))
      << bridge_->log();
  EXPECT_EQ(stop(false).value("text", "x"), "") << "the typed turn never saw it";
  const json queued_end = stop(false);
  EXPECT_TRUE(asked(queued_end, queued)) << queued_end.dump();
  EXPECT_EQ(queued_end.value("text", "").find(woke), std::string::npos) << "the first one was settled";
}

}  // namespace
}  // namespace agentworks::testing
