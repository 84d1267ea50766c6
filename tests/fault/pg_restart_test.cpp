// A real PostgreSQL restarted again and again (fast and immediate shutdowns) under concurrent senders that retry
// with their submission ids, then every acknowledged send (201/200) checked against what the store holds: none may
// be missing and none stored twice (R-M1, R-M2). A fast shutdown refuses new connections for a moment while the
// server still holds answers of an open batch: that is the window this test aims at.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "server_fault_fixture.hpp"
#include "testing/pg_admin.hpp"
#include "testing/pg_cluster.hpp"
#include "testing/test_store.hpp"

namespace agentworks::testing {
namespace {

long env_long(const char* name, long fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtol(v, nullptr, 10) : fallback;
}

class PgRestartTest : public ServerFaultTest {
 protected:
  void SetUp() override {
    // postgres runs as an unprivileged user when the tests run as root: it must reach its directory.
    std::filesystem::permissions(dir_.path(), std::filesystem::perms::others_exec, std::filesystem::perm_options::add);
    try {
      cluster_ = std::make_unique<PgCluster>(PgCluster::start(dir_.path() / "pg"));
    } catch (const std::exception& e) {
      GTEST_SKIP() << "no PostgreSQL test cluster here: " << e.what();
    }
    create_pg_template_database(cluster_->url());
    cluster_->create_database("restarts", kPgTemplateDatabase);
    ServerOptions options;
    options.env = home_.env();
    options.store_url = cluster_->url("restarts");
    options.extra_args = {"--rate-limit-per-hour", "1000000", "--inbox-history", "1000000"};
    server_ = std::make_unique<ServerProcess>(options);
    connect();
    const auto r = http_->post("/v1/agents", nlohmann::json{{"agent_name", "reviewer"}}.dump());
    ASSERT_EQ(r.status / 100, 2) << r.body;
    for (int t = 0; t < kSenders; ++t) {
      const auto w = http_->post("/v1/agents", nlohmann::json{{"agent_name", "w" + std::to_string(t)}}.dump());
      ASSERT_EQ(w.status / 100, 2) << w.body;
    }
  }
  void TearDown() override {
    ServerFaultTest::TearDown();
    server_.reset();  // before its database goes
    if (HasFailure() && cluster_) {
      std::cerr << "=== PostgreSQL log: " << cluster_->log_path() << "\n";
    }
  }

  static constexpr int kSenders = 8;
  TempDir dir_{"aw-pgr-"};
  std::unique_ptr<PgCluster> cluster_;
};

// R-M1, R-M2: restarts of the database never lose an acknowledged send nor store a resent one twice.
TEST_F(PgRestartTest, AcknowledgedSendsSurviveDatabaseRestarts_RM1_RM2) {
  const long restarts = std::max(1L, env_long("AGENTWORKS_PG_RESTARTS", 16));
  const auto seed = static_cast<std::uint32_t>(
      env_long("AGENTWORKS_PG_RESTART_SEED", static_cast<long>(std::random_device{}() & 0x7fffffff)));
  std::cout << "[ restarts ] " << restarts << " seed=" << seed << " (rerun with AGENTWORKS_PG_RESTART_SEED=" << seed
            << ")" << std::endl;
  std::mt19937 rng(seed);

  std::atomic<bool> stop{false};
  std::mutex mu;
  std::set<std::string> acknowledged;
  std::vector<std::string> unexpected;  // answers that are neither a receipt nor a retryable refusal
  std::atomic<long> refusals{0};
  std::vector<std::thread> senders;
  for (int t = 0; t < kSenders; ++t) {
    senders.emplace_back([&, t] {
      const HttpClient client(server_->url(), server_->owner_token());
      for (long n = 0; !stop.load(); ++n) {
        const std::string submission = "w" + std::to_string(t) + "-" + std::to_string(n);
        const nlohmann::json body = {{"agent_name", "w" + std::to_string(t)},
                                     {"target", "agent:reviewer"},
                                     {"message", text_of(submission, 16)},
                                     {"submission_id", submission}};
        // Retry the same submission until it is acknowledged or the run ends; an unanswered one is not counted.
        while (!stop.load()) {
          const HttpResponse r = client.request("POST", "/v1/messages", body.dump(), {}, std::chrono::seconds(20));
          if (r.status == 200 || r.status == 201) {
            const std::lock_guard<std::mutex> lock(mu);
            acknowledged.insert(submission);
            break;
          }
          if (r.status == 0 || r.status == 503) {
            ++refusals;
            std::this_thread::sleep_for(std::chrono::milliseconds(5));  // the database is coming back
            continue;
          }
          const std::lock_guard<std::mutex> lock(mu);
          unexpected.push_back(std::to_string(r.status) + " " + r.body);
          break;
        }
      }
    });
  }

  for (long i = 0; i < restarts; ++i) {
    // Load between restarts: 1-2.5 s of sends, so each restart finds batches open.
    std::this_thread::sleep_for(std::chrono::milliseconds(1000 + rng() % 1500));
    const auto mode = (rng() % 2 == 0) ? PgCluster::RestartMode::fast : PgCluster::RestartMode::immediate;
    ASSERT_NO_THROW(cluster_->restart(mode));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // sends after the last restart, too
  stop = true;
  for (auto& s : senders) s.join();

  const auto stored = mailbox();
  std::vector<std::string> lost;
  for (const auto& submission : acknowledged) {
    if (stored.find(text_of(submission, 16)) == stored.end()) lost.push_back(submission);
  }
  std::vector<std::string> doubled;
  for (const auto& [text, count] : stored) {
    if (count > 1) doubled.push_back(text);
  }
  std::cout << "[ restarts ] acknowledged=" << acknowledged.size() << " stored=" << stored.size()
            << " lost=" << lost.size() << " doubled=" << doubled.size() << " refused=" << refusals.load()
            << std::endl;
  EXPECT_TRUE(unexpected.empty()) << unexpected.size() << " unexpected answers, the first: " << unexpected.front();
  EXPECT_GE(acknowledged.size(), 200U) << "too few sends were acknowledged for the check to mean anything";
  EXPECT_TRUE(lost.empty()) << lost.size() << " acknowledged sends are not stored, the first: " << lost.front();
  EXPECT_TRUE(doubled.empty()) << doubled.size() << " sends are stored twice, the first: " << doubled.front();
}

}  // namespace
}  // namespace agentworks::testing
