// A real PostgreSQL restarted again and again (fast and immediate shutdowns), and replicas on it SIGKILLed, under
// concurrent senders that retry with their submission ids; then every acknowledged send (201/200) is checked
// against what the store holds: none may be missing and none stored twice (R-M1, R-M2). A fast shutdown refuses new
// connections for a moment while a server still holds answers of an open batch: the window this test aims at.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "support/server_fault_fixture.hpp"
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
    second_.reset();
    server_.reset();  // before its database goes
    if (HasFailure() && cluster_) {
      std::cerr << "=== PostgreSQL log: " << cluster_->log_path() << "\n";
    }
  }

  static constexpr int kSenders = 8;
  TempDir dir_{"aw-pgr-"};
  std::unique_ptr<PgCluster> cluster_;

  // Runs kSenders senders against the replicas (sender t starts on replica t % n and moves to the next one when
  // its replica does not answer), retrying each send with its submission id until it is acknowledged, while
  // `fault` runs `faults` times 1-2.5 s apart. Then checks every acknowledged send against the mailbox.
  void expect_nothing_lost(long faults, std::uint32_t seed, const std::function<void(std::mt19937&)>& fault) {
    std::mt19937 rng(seed);
    std::atomic<bool> stop{false};
    std::mutex mu;
    std::set<std::string> acknowledged;
    std::vector<std::string> unexpected;  // answers that are neither a receipt nor a retryable refusal
    std::atomic<long> refusals{0};
    const std::string token = server_->owner_token();
    std::vector<std::thread> senders;
    for (int t = 0; t < kSenders; ++t) {
      senders.emplace_back([&, t] {
        std::size_t replica = static_cast<std::size_t>(t) % replicas_.size();
        for (long n = 0; !stop.load(); ++n) {
          const std::string submission = "w" + std::to_string(t) + "-" + std::to_string(n);
          const nlohmann::json body = {{"agent_name", "w" + std::to_string(t)},
                                       {"target", "agent:reviewer"},
                                       {"message", text_of(submission, 16)},
                                       {"submission_id", submission}};
          // Retry the same submission until it is acknowledged or the run ends; an unanswered one is not counted.
          while (!stop.load()) {
            const HttpClient client(url_of(replica), token);
            const HttpResponse r = client.request("POST", "/v1/messages", body.dump(), {}, std::chrono::seconds(20));
            if (r.status == 200 || r.status == 201) {
              const std::lock_guard<std::mutex> lock(mu);
              acknowledged.insert(submission);
              break;
            }
            if (r.status == 0 || r.status == 503) {
              ++refusals;
              if (r.status == 0) replica = (replica + 1) % replicas_.size();  // that replica may be down
              std::this_thread::sleep_for(std::chrono::milliseconds(5));    // the database is coming back
              continue;
            }
            const std::lock_guard<std::mutex> lock(mu);
            unexpected.push_back(std::to_string(r.status) + " " + r.body);
            break;
          }
        }
      });
    }
    for (long i = 0; i < faults && !HasFatalFailure(); ++i) {
      // Load between faults: 1-2.5 s of sends, so each fault finds batches open.
      std::this_thread::sleep_for(std::chrono::milliseconds(1000 + rng() % 1500));
      fault(rng);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // sends after the last fault, too
    stop = true;
    for (auto& s : senders) s.join();

    connect();
    const auto stored = mailbox();
    std::vector<std::string> lost;
    for (const auto& submission : acknowledged) {
      if (stored.find(text_of(submission, 16)) == stored.end()) lost.push_back(submission);
    }
    std::vector<std::string> doubled;
    for (const auto& [text, count] : stored) {
      if (count > 1) doubled.push_back(text);
    }
    std::cout << "[ faults ] acknowledged=" << acknowledged.size() << " stored=" << stored.size()
              << " lost=" << lost.size() << " doubled=" << doubled.size() << " refused=" << refusals.load()
              << std::endl;
    EXPECT_TRUE(unexpected.empty()) << unexpected.size() << " unexpected answers, the first: " << unexpected.front();
    EXPECT_GE(acknowledged.size(), 200U) << "too few sends were acknowledged for the check to mean anything";
    EXPECT_TRUE(lost.empty()) << lost.size() << " acknowledged sends are not stored, the first: " << lost.front();
    EXPECT_TRUE(doubled.empty()) << doubled.size() << " sends are stored twice, the first: " << doubled.front();
  }
  std::string url_of(std::size_t replica) {
    const std::lock_guard<std::mutex> lock(replicas_mu_);
    return replicas_[replica]->url();
  }
  PgCluster::RestartMode any_mode(std::mt19937& rng) {
    return rng() % 2 == 0 ? PgCluster::RestartMode::fast : PgCluster::RestartMode::immediate;
  }
  static std::uint32_t seed_of_run(const char* what) {
    const auto seed = static_cast<std::uint32_t>(
        env_long("AGENTWORKS_PG_RESTART_SEED", static_cast<long>(std::random_device{}() & 0x7fffffff)));
    std::cout << "[ faults ] " << what << " seed=" << seed << " (rerun with AGENTWORKS_PG_RESTART_SEED=" << seed
              << ")" << std::endl;
    return seed;
  }

  std::vector<ServerProcess*> replicas_;  // server_ first
  std::mutex replicas_mu_;                // url() changes when a killed replica starts again
  std::unique_ptr<ServerProcess> second_;
};

// R-M1, R-M2: restarts of the database never lose an acknowledged send nor store a resent one twice.
TEST_F(PgRestartTest, AcknowledgedSendsSurviveDatabaseRestarts_RM1_RM2) {
  const long restarts = std::max(1L, env_long("AGENTWORKS_PG_RESTARTS", 16));
  replicas_ = {server_.get()};
  expect_nothing_lost(restarts, seed_of_run("database restarts"),
                      [&](std::mt19937& rng) { ASSERT_NO_THROW(cluster_->restart(any_mode(rng))); });
}

// R-M1, R-M2: two replicas on the database, one of them SIGKILLed and started again or the database restarted,
// at random: still nothing acknowledged is lost and nothing is stored twice.
TEST_F(PgRestartTest, AcknowledgedSendsSurviveReplicaKillsAndDatabaseRestarts_RM1_RM2) {
  const long faults = std::max(1L, env_long("AGENTWORKS_PG_RESTARTS", 16));
  ServerOptions options;
  options.env = home_.env();
  options.store_url = cluster_->url("restarts");
  options.extra_args = {"--rate-limit-per-hour", "1000000", "--inbox-history", "1000000"};
  second_ = std::make_unique<ServerProcess>(options);
  replicas_ = {server_.get(), second_.get()};
  int kills = 0;
  expect_nothing_lost(faults, seed_of_run("replica kills and database restarts"), [&](std::mt19937& rng) {
    if (rng() % 2 == 0) {
      ASSERT_NO_THROW(cluster_->restart(any_mode(rng)));
      return;
    }
    ServerProcess& victim = *replicas_[rng() % 2];
    victim.kill();
    ++kills;
    const std::lock_guard<std::mutex> lock(replicas_mu_);
    ASSERT_NO_THROW(victim.start());
  });
  std::cout << "[ faults ] replica kills=" << kills << std::endl;
}

}  // namespace
}  // namespace agentworks::testing
