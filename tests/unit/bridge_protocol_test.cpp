// The local socket protocol without sockets: the one command table, the one dispatch point, line framing and the
// reconnect backoff.
#include <gtest/gtest.h>
#include <unistd.h>
#include <uv.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bridge.hpp"
#include "ops/command_table.hpp"
#include "platform/backoff.hpp"
#include "platform/line_reader.hpp"
#include "support/uv_loop_test.hpp"
#include "testing/temp_home.hpp"

namespace agentworks::bridge {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

TEST(BridgeCommandTable, NoDuplicateOpsAndEveryEntryHasHelp) {
  std::set<std::string> seen;
  for (const auto& c : commands()) {
    EXPECT_TRUE(seen.insert(std::string(c.op)).second) << "duplicate op " << c.op;
    EXPECT_FALSE(c.help.empty()) << "op " << c.op << " has no help text";
    EXPECT_NE(c.handler, nullptr) << c.op;
    EXPECT_EQ(find_command(c.op), &c);
  }
  for (const char* op : {"ping", "status", "attach", "detach", "offline", "resume", "lookup", "take", "cleanup"}) {
    EXPECT_NE(find_command(op), nullptr) << op;
  }
}

TEST(BridgeCommandTable, GreetingNamesProtocolAndCapabilities) {
  const auto line = greeting_line();
  ASSERT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);  // one line
  const auto g = json::parse(line);
  EXPECT_EQ(g["agentworks_bridge"], 1);
  EXPECT_EQ(g["protocol"], kLocalProtocolVersion);
  EXPECT_EQ(g["capabilities"].size(), commands().size());
}

// The request fields a function of daemon/lib reads, found in the source rather than in a copy of the list: every
// `helper(req, "field"`, `req.find("field")`, `req.contains("field")`, `req["field"]` in its body, and the same for
// each function it passes the request to (its definition found among daemon/lib's .cpp files).
class RequestFieldScan {
 public:
  RequestFieldScan() {
    for (const auto& e : fs::recursive_directory_iterator(fs::path(AGENTWORKS_SOURCE_DIR) / "daemon" / "lib")) {
      if (!e.is_regular_file() || e.path().extension() != ".cpp") continue;
      std::ifstream in(e.path());
      std::stringstream text;
      text << in.rdbuf();
      sources_.push_back(text.str());
    }
  }

  std::set<std::string> fields_read(const std::string& function) {
    std::set<std::string> fields;
    std::set<std::string> visited;
    scan(function, fields, visited);
    return fields;
  }

 private:
  // The braces of a body from `open`, skipping string and character literals.
  static std::string body_at(const std::string& text, std::size_t open) {
    int depth = 0;
    for (std::size_t i = open; i < text.size(); ++i) {
      const char c = text[i];
      if (c == '"' || c == '\'') {
        for (++i; i < text.size() && text[i] != c; ++i) {
          if (text[i] == '\\') ++i;
        }
        continue;
      }
      if (c == '{') ++depth;
      if (c == '}' && --depth == 0) return text.substr(open, i - open + 1);
    }
    return {};
  }

  void scan(const std::string& function, std::set<std::string>& fields, std::set<std::string>& visited) {
    if (!visited.insert(function).second) return;
    const std::regex definition("\\b" + function + "\\(([^()]*json&\\s*(\\w+)[^()]*)\\)\\s*(const\\s*)?\\{");
    for (const auto& text : sources_) {
      std::smatch m;
      if (!std::regex_search(text, m, definition)) continue;
      const std::string param = m[2].str();
      const auto open = static_cast<std::size_t>(m.position(0) + m.length(0) - 1);
      const std::string body = body_at(text, open);
      const std::regex field("\\(" + param + ", \"(\\w+)\"|\\b" + param + "\\.(?:find|contains)\\(\"(\\w+)\"\\)|\\b" +
                             param + "\\[\"(\\w+)\"\\]");
      for (std::sregex_iterator it(body.begin(), body.end(), field), end; it != end; ++it) {
        for (std::size_t g = 1; g <= 3; ++g) {
          if ((*it)[g].matched) fields.insert((*it)[g].str());
        }
      }
      const std::regex call("\\b(\\w+)\\(" + param + "\\b");
      for (std::sregex_iterator it(body.begin(), body.end(), call), end; it != end; ++it) {
        scan((*it)[1].str(), fields, visited);
      }
      return;
    }
  }

  std::vector<std::string> sources_;
};

bool names_field(std::string_view help, const std::string& field) {
  const auto word = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; };
  for (auto at = help.find(field); at != std::string_view::npos; at = help.find(field, at + 1)) {
    const bool starts = at == 0 || !word(help[at - 1]);
    const bool ends = at + field.size() == help.size() || !word(help[at + field.size()]);
    if (starts && ends) return true;
  }
  return false;
}

TEST(BridgeCommandTable, AttachHelpNamesEveryFieldOpAttachReads) {
  RequestFieldScan scan;
  const auto fields = scan.fields_read("op_attach");
  ASSERT_FALSE(fields.empty()) << "found no request field that op_attach reads in daemon/lib";
  const Command* attach = find_command("attach");
  ASSERT_NE(attach, nullptr);
  for (const auto& field : fields) {
    EXPECT_TRUE(names_field(attach->help, field)) << "op_attach reads '" << field << "', its help does not name it";
  }
}

class DispatchTest : public agentworks::testing::UvLoopTest {
 protected:
  void SetUp() override {
    dir_ = agentworks::testing::make_temp_dir("bridge_dispatch_", "/tmp");
    UvLoopTest::SetUp();
    BridgeOptions o;
    o.state_dir = dir_;
    bridge_ = std::make_unique<Bridge>(&loop_, o);
  }
  void TearDown() override {
    bridge_->shutdown(0);
    bridge_.reset();
    uv_run(&loop_, UV_RUN_DEFAULT);
    close_loop();
    fs::remove_all(dir_);
  }

  // One request line -> its one answer line, parsed.
  json call(const std::string& line) {
    std::vector<std::string> out;
    dispatch(*bridge_, line, [&](std::string l, const Reply::Written& written) {
      out.push_back(std::move(l));
      if (written) written(true);
    });
    EXPECT_EQ(out.size(), 1u) << line;
    if (out.empty()) return json();
    EXPECT_EQ(out[0].back(), '\n');
    return json::parse(out[0]);
  }

  static std::string code(const json& answer) { return answer["error"]["code"].get<std::string>(); }

  fs::path dir_;
  std::unique_ptr<Bridge> bridge_;
};

TEST_F(DispatchTest, PingAnswersWithItsId) {
  const auto a = call(R"({"id":7,"op":"ping"})");
  EXPECT_EQ(a["id"], 7);
  EXPECT_EQ(a["ok"], true);
  EXPECT_EQ(a["pong"], true);
  EXPECT_EQ(call(R"({"id":"x","op":"ping"})")["id"], "x");
}

TEST_F(DispatchTest, MalformedRequestsGetErrorObjects) {
  for (const char* line : {"not json", "[1,2]", "42", "\"str\"", "{", "{\"id\":1,\"op\":\"ping\"}x", "null"}) {
    const auto a = call(line);
    EXPECT_EQ(code(a), "bad_request") << line;
    EXPECT_TRUE(a["id"].is_null()) << line;
  }
  EXPECT_EQ(code(call(R"({"id":{"a":1},"op":"ping"})")), "bad_request");
  EXPECT_EQ(code(call(R"({"id":1})")), "bad_request");
  EXPECT_EQ(code(call(R"({"id":1,"op":5})")), "bad_request");
  EXPECT_EQ(code(call(R"({"id":1,"op":"no_such_op"})")), "not_found");
  // Bad fields: typed, stable codes; the bridge stays usable.
  EXPECT_EQ(code(call(R"({"id":2,"op":"lookup"})")), "bad_request");
  EXPECT_EQ(code(call(R"({"id":3,"op":"lookup","provider":"Claude!","session_id":"s"})")), "bad_request");
  EXPECT_EQ(code(call(R"({"id":4,"op":"lookup","provider":"claude","session_id":7})")), "bad_request");
  EXPECT_EQ(code(call(R"({"id":5,"op":"take","provider":"claude","session_id":"s","limit":99})")), "bad_request");
  EXPECT_EQ(code(call(R"({"id":6,"op":"attach","provider":"claude","session_id":"s","agent_name":"-bad",)"
                      R"("purpose":"p"})")),
            "invalid_name");
  EXPECT_EQ(call(R"({"id":8,"op":"ping"})")["ok"], true);
}

// R-H9: lookup is local; an unattached session answers attached=false without any network call.
TEST_F(DispatchTest, LookupOfUnattachedSessionIsLocal_RH9) {
  const auto a = call(R"({"id":1,"op":"lookup","provider":"claude","session_id":"abc"})");
  EXPECT_EQ(a["ok"], true);
  EXPECT_EQ(a["attached"], false);
  EXPECT_EQ(code(call(R"({"id":2,"op":"take","provider":"claude","session_id":"abc"})")), "not_found");
}

TEST_F(DispatchTest, AttachWithoutLoginIsUnauthenticated) {
  ::setenv("AGENTWORKS_CONFIG", (dir_ / "missing.json").c_str(), 1);
  const auto a = call(R"({"id":1,"op":"attach","provider":"claude","session_id":"s","agent_name":"rev","purpose":"p"})");
  ::unsetenv("AGENTWORKS_CONFIG");
  EXPECT_EQ(code(a), "unauthenticated");
}

TEST_F(DispatchTest, StatusListsAttachments) {
  AttachmentRow r;
  r.attachment_id = "att_x";
  r.provider = "codex";
  r.session_id = "t1";
  r.agent_name = "worker";
  r.purpose = "p";
  r.server_url = "http://127.0.0.1:9";
  r.connection_id = "conn_x";
  r.state = AttachmentState::offline;
  bridge_->journal().upsert_attachment(r);
  const auto a = call(R"({"id":1,"op":"status"})");
  ASSERT_EQ(a["attachments"].size(), 1u);
  EXPECT_EQ(a["attachments"][0]["agent_name"], "worker");
  EXPECT_EQ(a["attachments"][0]["state"], "offline");
  EXPECT_EQ(a["attachments"][0]["stream"], "stopped");
  const auto l = call(R"({"id":2,"op":"lookup","provider":"codex","session_id":"t1"})");
  EXPECT_EQ(l["attached"], false);
  EXPECT_EQ(l["state"], "offline");
  const auto t = call(R"({"id":3,"op":"take","provider":"codex","session_id":"t1"})");
  EXPECT_EQ(t["messages"].size(), 0u);  // offline: messages wait
  const auto res = call(R"({"id":4,"op":"offline","provider":"codex","session_id":"t1"})");
  EXPECT_EQ(res["state"], "offline");
}

TEST(BridgeLineReader, SplitsLinesAndSurvivesOversize) {
  LineReader r(10);
  std::vector<std::string> lines;
  int oversize = 0;
  const auto on_line = [&](std::string_view l) { lines.emplace_back(l); };
  const auto on_over = [&] { ++oversize; };
  r.feed("ab", on_line, on_over);
  r.feed("c\r\n\nde", on_line, on_over);
  r.feed("f\n", on_line, on_over);
  EXPECT_EQ(lines, (std::vector<std::string>{"abc", "def"}));
  r.feed("0123456789ABCDEF", on_line, on_over);  // over the limit, no newline yet
  r.feed("GHIJ", on_line, on_over);
  r.feed("KL\nok\n", on_line, on_over);
  EXPECT_EQ(oversize, 1);
  EXPECT_EQ(lines.back(), "ok");
  EXPECT_LE(r.buffered(), 10u);
  r.feed("0123456789X\nfine\n", on_line, on_over);  // oversize line ending in the same chunk
  EXPECT_EQ(oversize, 2);
  EXPECT_EQ(lines.back(), "fine");
}

// R-B4: exponential backoff with full jitter, first retry within 1 s, capped at 30 s.
TEST(BridgeBackoff, FirstRetryWithinOneSecondCappedAtThirty_RB4) {
  const BackoffPolicy p;
  EXPECT_EQ(backoff_ceiling_ms(p, 0), 1000u);
  EXPECT_EQ(backoff_ceiling_ms(p, 1), 2000u);
  EXPECT_EQ(backoff_ceiling_ms(p, 4), 16000u);
  EXPECT_EQ(backoff_ceiling_ms(p, 5), 30000u);
  EXPECT_EQ(backoff_ceiling_ms(p, 1000), 30000u);
  JitterRng rng(42);
  std::set<std::uint64_t> distinct;
  for (int i = 0; i < 200; ++i) {
    const auto d0 = backoff_delay_ms(p, 0, rng);
    EXPECT_LE(d0, 1000u);
    const auto d9 = backoff_delay_ms(p, 9, rng);
    EXPECT_LE(d9, 30000u);
    distinct.insert(d9);
  }
  EXPECT_GT(distinct.size(), 50u);  // jittered, not a fixed delay
}

}  // namespace
}  // namespace agentworks::bridge
