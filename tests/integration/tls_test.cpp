// TLS end to end with real processes (R-T5): a server with --tls-cert/--tls-key, the CLI logged in with
// --ca-file sending and reading over https, the bridge receiving over its https SSE stream, a function execution
// asking its caller over https, and every refusal: a login without the CA (untrusted_certificate), plaintext beyond
// loopback, a lone --tls-cert, a key that does not match, plain http to a host that is not loopback, and a
// plaintext client on the TLS port.
#include <gtest/gtest.h>

#include <fstream>

#include "testing/binaries.hpp"
#include "testing/http_client.hpp"
#include "testing/test_certificate.hpp"
#include "testing/wait.hpp"
#include "support/bridge_fixture.hpp"

namespace agentworks::testing {
namespace {

// A server run that must fail at startup: its exit code and stderr.
ProcessResult run_server_expecting_refusal(const TempHome& home, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {server_binary(), "--data", home.path("refused-data").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, RunOptions{home.env(), std::nullopt, std::chrono::seconds(20), {}});
}

class TlsTest : public BridgeTest {
 protected:
  void SetUp() override { cert_ = make_test_certificate(home_.root(), "server"); }

  // The server over TLS on 127.0.0.1, the owner's token read from its data directory.
  void start_tls_server() {
    ServerOptions options;
    options.data_dir = home_.path("server-data");
    options.extra_args = {"--tls-cert", cert_.cert.string(), "--tls-key", cert_.key.string(), "--heartbeat-seconds",
                          "1"};
    options.env = home_.env();
    server_ = std::make_unique<ServerProcess>(options);
  }

  // `agentworks login` of the owner with the default config of the temp home (the one the bridge reads).
  CliResult login(const Cli& cli, const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"login", "--server", server_->url(), "--token-stdin"};
    args.insert(args.end(), extra.begin(), extra.end());
    return cli.json(args, server_->owner_token());
  }

  TestCertificate cert_;
};

TEST_F(TlsTest, LoginWithCaFileSendsAndReadsOverHttps_R_T5) {
  start_tls_server();
  ASSERT_EQ(server_->url().rfind("https://127.0.0.1:", 0), 0u) << server_->log();
  const Cli cli(home_.env());
  const CliResult in = login(cli, {"--ca-file", cert_.cert.string()});
  ASSERT_EQ(in.exit_code, 0) << in.describe();
  EXPECT_EQ(in.json()["logged_in"], true);
  EXPECT_EQ(in.json()["ca_file"], cert_.cert.string());

  register_agent(cli, "worker");
  register_agent(cli, "reviewer");
  send_as(cli, "worker", "agent:reviewer", "over tls");
  EXPECT_EQ(texts_of(read_mailbox(cli, "reviewer")), std::vector<std::string>{"over tls"});
}

TEST_F(TlsTest, LoginWithoutTheCaFailsWithTheCertificateError_R_T5) {
  start_tls_server();
  const Cli cli(home_.env());
  const CliResult in = login(cli, {});
  EXPECT_EQ(in.exit_code, 6) << in.describe();
  EXPECT_EQ(in.error_code(), "untrusted_certificate") << in.describe();
  EXPECT_NE(in.out.find("--ca-file"), std::string::npos) << in.describe();
  EXPECT_FALSE(std::filesystem::exists(home_.config_home() / "agentworks" / "config.json"));
}

TEST_F(TlsTest, MissingCaFileIsRefusedAtLogin) {
  start_tls_server();
  const Cli cli(home_.env());
  const CliResult in = login(cli, {"--ca-file", home_.path("no-such.pem").string()});
  EXPECT_EQ(in.exit_code, 2) << in.describe();
  EXPECT_EQ(in.error_code(), "usage") << in.describe();
  EXPECT_NE(in.out.find("no-such.pem"), std::string::npos) << in.describe();
  // A file that holds no certificate is refused as well.
  const auto not_pem = home_.path("not.pem");
  std::ofstream(not_pem) << "hello\n";
  const CliResult junk = login(cli, {"--ca-file", not_pem.string()});
  EXPECT_EQ(junk.error_code(), "usage") << junk.describe();
}

TEST_F(TlsTest, BridgeReceivesOverItsHttpsStream_R_T5) {
  start_tls_server();
  const Cli cli(home_.env());
  const CliResult in = login(cli, {"--ca-file", cert_.cert.string()});
  ASSERT_EQ(in.exit_code, 0) << in.describe();
  register_agent(cli, "worker");
  start_bridge();
  attach("sess-tls");
  ASSERT_TRUE(wait_connected("sess-tls")) << status_of("sess-tls").dump();
  send_as(cli, "worker", "agent:reviewer", "streamed over tls");
  ASSERT_TRUE(wait_pending("sess-tls", 1)) << lookup("claude", "sess-tls").dump();
  const json taken = take("sess-tls");
  ASSERT_EQ(taken["messages"].size(), 1u) << taken.dump();
  EXPECT_EQ(taken["messages"][0]["message"], "streamed over tls");
}

// A function execution's `agentworks functions ask` reaches a TLS server over https, trusting the server's own
// certificate (AGENTWORKS_SERVER_CA_FILE); the caller answers over https too.
TEST_F(TlsTest, FunctionExecutionAsksOverHttps_R_T5) {
  start_tls_server();
  const Cli cli(home_.env());
  ASSERT_EQ(login(cli, {"--ca-file", cert_.cert.string()}).exit_code, 0);
  const auto dir = home_.path("crews") / "api";
  std::filesystem::create_directories(dir / ".agentworks");
  std::filesystem::create_directories(dir / "tools");
  const json asks = {{"name", "asks"},
                     {"description", "asks its caller"},
                     {"inputs", {{"type", "object"}}},
                     {"run", {{"command", json::array({"./tools/asks.sh"})}}},
                     {"timeout_seconds", 120}};
  const json functions = {{"functions", json::array({asks})}};
  std::ofstream(dir / ".agentworks" / "functions.json") << functions.dump(2) << "\n";
  std::ofstream(dir / "tools" / "asks.sh")
      << "#!/bin/sh\nanswer=$('" << cli_binary()
      << "' functions ask --question 'Which branch?') || { echo \"ask failed $?\" >&2; exit 7; }\n"
         "echo \"answer=$answer\"\n";
  std::filesystem::permissions(dir / "tools" / "asks.sh", std::filesystem::perms::owner_all);
  cli_ok(cli, {"crews", "register", "api", "--dir", dir.string()});
  const std::string id = cli_ok(cli, {"functions", "call", "--crew", "api", "--function", "asks", "--args", "{}"})
                             .at("call_id")
                             .get<std::string>();

  json state;
  ASSERT_TRUE(wait_until(
      [&] {
        state = cli_ok(cli, {"functions", "call-status", "--call", id});
        return state.value("status", "") == "waiting_input" || state.value("status", "") == "failed";
      },
      std::chrono::seconds(30), std::chrono::milliseconds(100)))
      << state.dump();
  ASSERT_EQ(state.value("status", ""), "waiting_input") << state.dump();
  const std::string request = state.at("pending_inputs").at(0).at("request_id").get<std::string>();
  cli_ok(cli, {"functions", "reply", "--call", id, "--request", request, "--answer", "main"});
  ASSERT_TRUE(wait_until(
      [&] {
        state = cli_ok(cli, {"functions", "call-status", "--call", id});
        const std::string status = state.value("status", "");
        return status == "completed" || status == "failed" || status == "interrupted";
      },
      std::chrono::seconds(30), std::chrono::milliseconds(100)))
      << state.dump();
  EXPECT_EQ(state.value("status", ""), "completed") << state.dump();
  EXPECT_NE(state.value("answer", "").find("answer=main"), std::string::npos) << state.dump();
}

TEST_F(TlsTest, PlaintextClientOnTheTlsPortDoesNotHurtTheServer_R_T5) {
  start_tls_server();
  {
    Connection plain(server_->port());
    plain.write_all("GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n");
    plain.read_to_eof(Connection::Clock::now() + std::chrono::seconds(10));  // whatever comes, then the close
  }
  ASSERT_TRUE(server_->running()) << server_->log();
  const Cli cli(home_.env());
  const CliResult in = login(cli, {"--ca-file", cert_.cert.string()});
  EXPECT_EQ(in.exit_code, 0) << in.describe();
}

TEST_F(TlsTest, PlaintextBeyondLoopbackIsRefusedAtStartup_R_T5) {
  const ProcessResult r = run_server_expecting_refusal(home_, {"--listen", "0.0.0.0:0"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--tls-cert FILE --tls-key FILE"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--behind-proxy"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(home_.path("refused-data"))) << "a refused start created its data directory";
}

TEST_F(TlsTest, BehindProxyAllowsPlaintextBeyondLoopback_R_T5) {
  // The startup line names the address it listens on (ServerProcess expects 127.0.0.1), so it is read here.
  const auto out = home_.path("proxy.stdout");
  Child child = Child::start({server_binary(), "--listen", "0.0.0.0:0", "--behind-proxy", "--data",
                              home_.path("server-data").string()},
                             home_.env(), out, home_.path("proxy.stderr"));
  std::string text;
  ASSERT_TRUE(wait_until(
      [&] {
        text = read_file(out);
        return text.find('\n') != std::string::npos || !child.running();
      },
      std::chrono::seconds(20)));
  EXPECT_EQ(text.rfind("listening on http://0.0.0.0:", 0), 0u) << text << child.read_stderr();
}

TEST_F(TlsTest, LoneCertOrKeyIsAUsageError) {
  const ProcessResult cert_only = run_server_expecting_refusal(home_, {"--tls-cert", cert_.cert.string()});
  EXPECT_EQ(cert_only.exit_code, 2) << cert_only.err;
  EXPECT_NE(cert_only.err.find("--tls-key"), std::string::npos) << cert_only.err;
  const ProcessResult key_only = run_server_expecting_refusal(home_, {"--tls-key", cert_.key.string()});
  EXPECT_EQ(key_only.exit_code, 2) << key_only.err;
  EXPECT_NE(key_only.err.find("--tls-cert"), std::string::npos) << key_only.err;
}

TEST_F(TlsTest, KeyThatDoesNotMatchAndBadFilesAreRefused_R_T5) {
  const TestCertificate other = make_test_certificate(home_.root(), "other");
  const ProcessResult mismatch =
      run_server_expecting_refusal(home_, {"--tls-cert", cert_.cert.string(), "--tls-key", other.key.string()});
  EXPECT_EQ(mismatch.exit_code, 2) << mismatch.err;
  EXPECT_NE(mismatch.err.find("does not match"), std::string::npos) << mismatch.err;

  const ProcessResult missing = run_server_expecting_refusal(
      home_, {"--tls-cert", home_.path("absent.crt").string(), "--tls-key", cert_.key.string()});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_NE(missing.err.find("absent.crt"), std::string::npos) << missing.err;

  // A key file given as the certificate: not a certificate.
  const ProcessResult swapped =
      run_server_expecting_refusal(home_, {"--tls-cert", cert_.key.string(), "--tls-key", cert_.key.string()});
  EXPECT_EQ(swapped.exit_code, 2) << swapped.err;
  EXPECT_NE(swapped.err.find("not a usable certificate"), std::string::npos) << swapped.err;
  EXPECT_FALSE(std::filesystem::exists(home_.path("refused-data")));
}

// R-T5: an expired or not yet valid certificate is refused at start with its dates (clients would refuse every
// handshake), and nothing is created; a dated certificate valid now starts.
TEST_F(TlsTest, ExpiredOrNotYetValidCertificateIsRefusedAtStart_R_T5) {
  const TestCertificate expired = make_dated_test_certificate(home_.root(), "expired", -10 * 86400, -86400);
  const ProcessResult old =
      run_server_expecting_refusal(home_, {"--tls-cert", expired.cert.string(), "--tls-key", expired.key.string()});
  EXPECT_EQ(old.exit_code, 2) << old.err;
  EXPECT_NE(old.err.find("expired on"), std::string::npos) << old.err;
  EXPECT_NE(old.err.find("GMT"), std::string::npos) << "the date: " << old.err;

  const TestCertificate future = make_dated_test_certificate(home_.root(), "future", 86400, 10 * 86400);
  const ProcessResult early =
      run_server_expecting_refusal(home_, {"--tls-cert", future.cert.string(), "--tls-key", future.key.string()});
  EXPECT_EQ(early.exit_code, 2) << early.err;
  EXPECT_NE(early.err.find("is not valid before"), std::string::npos) << early.err;
  EXPECT_FALSE(std::filesystem::exists(home_.path("refused-data")));

  cert_ = make_dated_test_certificate(home_.root(), "current", -60, 86400);
  start_tls_server();
  EXPECT_EQ(server_->url().rfind("https://127.0.0.1:", 0), 0u) << server_->log();
}

// R-T5: doctor warns, with the date, when the server's certificate expires within two weeks.
TEST_F(TlsTest, DoctorWarnsOfACertificateAboutToExpire_R_T5) {
  cert_ = make_dated_test_certificate(home_.root(), "soon", -60, 3 * 86400 - 3600);
  start_tls_server();
  const Cli cli(home_.env());
  ASSERT_EQ(login(cli, {"--ca-file", cert_.cert.string()}).exit_code, 0);
  const CliResult doctor = cli.json({"doctor", "--provider", "cursor", "--project", home_.root().string()});
  json server_check;
  const json report = doctor.json();  // named: the loop must not iterate a dead temporary
  for (const auto& c : report.at("checks"))
    if (c.at("name") == "server") server_check = c;
  ASSERT_TRUE(server_check.is_object()) << doctor.describe();
  EXPECT_EQ(server_check.value("status", ""), "warn") << doctor.describe();
  EXPECT_NE(server_check.dump().find("certificate expires on"), std::string::npos) << doctor.describe();
  EXPECT_NE(server_check.dump().find("in 2 days"), std::string::npos) << doctor.describe();
}

TEST_F(TlsTest, ClientRefusesPlainHttpBeyondLoopback_R_T5) {
  const Cli cli(home_.env());
  const CliResult in = cli.json({"login", "--server", "http://192.0.2.1:7787", "--token-stdin"}, "token");
  EXPECT_EQ(in.exit_code, 2) << in.describe();
  EXPECT_EQ(in.error_code(), "usage") << in.describe();
  EXPECT_NE(in.out.find("https"), std::string::npos) << in.describe();
}

}  // namespace
}  // namespace agentworks::testing
