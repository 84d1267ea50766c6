// agentworks-test-pg: the PostgreSQL cluster the CTest fixture `postgresql` shares between the pg.* tests.
//   agentworks-test-pg start DIR   initdb + start in DIR, create agentworks_template with `agentworks-server migrate`,
//                                  write the server URL (no database) to DIR/url
//   agentworks-test-pg stop DIR    stop the cluster in DIR (nothing to do when none runs)
// Exit 0 on success, 1 on failure (the message says what to do), 2 on a bad command line.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>

#include "testing/pg_cluster.hpp"
#include "testing/test_store.hpp"

namespace {

namespace fs = std::filesystem;
using agentworks::testing::PgCluster;

int start_fixture_cluster(const fs::path& dir) {
  fs::remove(dir / "url");  // a test must never find the URL of a cluster that is not there
  PgCluster cluster = PgCluster::start(dir);  // stopped again when the template cannot be made
  agentworks::testing::create_pg_template_database(cluster.url());
  std::ofstream(dir / "url") << cluster.url() << "\n";
  if (!std::ifstream(dir / "url")) throw std::runtime_error("cannot write " + (dir / "url").string());
  cluster.release();
  std::printf("PostgreSQL test cluster at %s (template %s), log %s\n", cluster.url().c_str(),
              agentworks::testing::kPgTemplateDatabase, cluster.log_path().c_str());
  return 0;
}

int stop_fixture_cluster(const fs::path& dir) {
  agentworks::testing::stop_pg_cluster(dir);
  fs::remove(dir / "url");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string command = argc == 3 ? argv[1] : "";
  if (command != "start" && command != "stop") {
    std::fprintf(stderr, "usage: agentworks-test-pg start DIR | agentworks-test-pg stop DIR\n");
    return 2;
  }
  const fs::path dir = fs::absolute(argv[2]);
  try {
    return command == "start" ? start_fixture_cluster(dir) : stop_fixture_cluster(dir);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "agentworks-test-pg %s %s: %s\n", command.c_str(), dir.c_str(), e.what());
    return 1;
  }
}
