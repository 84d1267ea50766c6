// The server listens on IPv6 (`--listen [ADDR]:PORT`) with the same loopback and TLS rule as on IPv4, and the CLI
// reaches it by an `http://[::1]:PORT` URL (R-T5). Skipped where this machine has no IPv6 loopback.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <regex>
#include <string>

#include "testing/binaries.hpp"
#include "testing/cli_runner.hpp"
#include "testing/process.hpp"
#include "testing/temp_home.hpp"
#include "testing/wait.hpp"

namespace agentworks::testing {
namespace {

bool ipv6_loopback_available() {
  const int fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in6 addr{};
  addr.sin6_family = AF_INET6;
  addr.sin6_addr = in6addr_loopback;
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

class ListenIpv6 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!ipv6_loopback_available()) GTEST_SKIP() << "no IPv6 loopback (::1) on this machine";
  }
  ProcessResult refused(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {server_binary(), "--data", home_.path("refused-data").string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv, RunOptions{home_.env(), std::nullopt, std::chrono::seconds(20), {}});
  }
  TempHome home_;
};

// R-T5: [::1]:0 serves plaintext (loopback); the first line names the URL with brackets; the CLI logs in and
// registers a name through it.
TEST_F(ListenIpv6, LoopbackServesAndTheCliReachesIt_R_T5) {
  const auto data = home_.path("server-data");
  Child server = Child::start({server_binary(), "--listen", "[::1]:0", "--data", data.string()}, home_.env(),
                              home_.path("server.out"), home_.path("server.err"));
  std::smatch m;
  std::string out;
  const std::regex line(R"(listening on (http://\[::1\]:([0-9]+))\n)");
  ASSERT_TRUE(wait_until([&] {
    out = server.read_stdout();
    return std::regex_search(out, m, line);
  }, std::chrono::seconds(20)))
      << out << server.read_stderr();
  const std::string url = m[1].str();
  std::string token;
  ASSERT_TRUE(wait_until([&] {
    std::ifstream in(data / "owner.token");
    return static_cast<bool>(in >> token);
  }));
  const Cli cli(home_.env());
  const CliResult login = cli.login(url, token);
  ASSERT_EQ(login.exit_code, 0) << login.describe();
  const CliResult reg = cli.json({"messages", "register", "--agent", "worker"});
  EXPECT_EQ(reg.exit_code, 0) << reg.describe();
  server.kill_and_wait();
}

// R-T5: an IPv6 address beyond loopback needs TLS like an IPv4 one; a bare IPv6 address without brackets is a
// usage error naming both forms.
TEST_F(ListenIpv6, BeyondLoopbackNeedsTlsAndBracketsAreRequired_R_T5) {
  const ProcessResult any = refused({"--listen", "[::]:0"});
  EXPECT_EQ(any.exit_code, 2) << any.err;
  EXPECT_NE(any.err.find("beyond loopback"), std::string::npos) << any.err;
  const ProcessResult bare = refused({"--listen", "::1:0"});
  EXPECT_EQ(bare.exit_code, 2) << bare.err;
  EXPECT_NE(bare.err.find("[IPV6]:PORT"), std::string::npos) << bare.err;
  EXPECT_FALSE(std::filesystem::exists(home_.path("refused-data")));
}

}  // namespace
}  // namespace agentworks::testing
