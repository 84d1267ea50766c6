// A Crew's functions.json (R-F1): what is accepted, and every refusal names the line and the reason.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "agentworks/error.hpp"
#include "crews/call_admission.hpp"
#include "declaration/declaration.hpp"
#include "declaration/schema_check.hpp"

namespace fs = std::filesystem;
using agentworks::Error;
using agentworks::ErrorCode;
using namespace agentworks::functions;
using agentworks::server::functions::parsed_declaration;

class DeclarationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("aw-decl-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "tools");
    std::ofstream(dir_ / "tools" / "run.sh") << "#!/bin/sh\n";
    ::chmod((dir_ / "tools" / "run.sh").c_str(), 0755);
    std::ofstream(dir_ / "tools" / "plain.txt") << "x";
    dir_ = fs::canonical(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The refusal text for `text`, or "" when it is accepted.
  std::string refusal(const std::string& text) {
    try {
      parse_declaration(text, dir_, "functions.json");
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_declaration);
      return e.what();
    }
    return "";
  }
  fs::path dir_;
};

static const char* const kGood = R"({"functions": [{
  "name": "word_count",
  "description": "Counts the words of a text",
  "inputs": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
  "output_schema": {"type": "object", "properties": {"words": {"type": "integer"}}, "required": ["words"]},
  "run": {"command": ["./tools/run.sh", "--fast"]},
  "timeout_seconds": 30,
  "allowed_callers": ["acc_123"]
}, {"name": "echo", "inputs": {}, "run": {"command": ["cat"]}}]})";


TEST_F(DeclarationTest, AcceptsTheDocumentedFormAndRoundTrips) {
  const Declaration d = parse_declaration(kGood, dir_, "functions.json");
  ASSERT_EQ(d.functions.size(), 2U);
  const FunctionDecl& f = d.functions[0];
  EXPECT_EQ(f.name, "word_count");
  EXPECT_EQ(f.command, (std::vector<std::string>{"./tools/run.sh", "--fast"}));
  EXPECT_EQ(f.timeout_seconds, 30);
  EXPECT_EQ(f.allowed_callers, std::vector<std::string>{"acc_123"});
  ASSERT_TRUE(f.output_schema_json.has_value());
  EXPECT_EQ(d.functions[1].timeout_seconds, kDefaultTimeoutSeconds);
  EXPECT_FALSE(d.functions[1].output_schema_json.has_value());
  const Declaration again = declaration_from_json(declaration_to_json(d));
  EXPECT_EQ(declaration_to_json(again), declaration_to_json(d));
  EXPECT_NE(find_function(again, "WORD_COUNT"), nullptr);
  EXPECT_EQ(find_function(again, "nope"), nullptr);
}

TEST_F(DeclarationTest, InvalidJsonNamesTheLine) {
  const std::string r = refusal("{\"functions\": [\n  {\"name\": \"x\",\n   \"inputs\": {},\n]}");
  EXPECT_NE(r.find("functions.json:4:"), std::string::npos) << r;
  EXPECT_NE(r.find("invalid JSON"), std::string::npos) << r;
  EXPECT_NE(r.find("unchanged"), std::string::npos) << r;
}

TEST_F(DeclarationTest, UnknownKeysAreRefusedAtTheirLine) {
  std::string r = refusal("{\"functions\": [{\"name\": \"x\",\n \"inputz\": {},\n \"run\": {\"command\": [\"cat\"]}}]}");
  EXPECT_NE(r.find("functions.json:2:"), std::string::npos) << r;
  EXPECT_NE(r.find("unknown key 'inputz'"), std::string::npos) << r;
  r = refusal("{\"functions\": [], \"extra\": 1}");
  EXPECT_NE(r.find("unknown key 'extra'"), std::string::npos) << r;
  r = refusal("{\"functions\": [{\"name\": \"x\", \"inputs\": {},\n \"run\": {\"command\": [\"cat\"], \"shell\": true}}]}");
  EXPECT_NE(r.find("run.shell"), std::string::npos) << r;
}

TEST_F(DeclarationTest, InvalidSchemasAreRefused) {
  std::string r = refusal("{\"functions\": [{\"name\": \"x\",\n \"inputs\": {\"type\": \"strin\"},\n \"run\": {\"command\": [\"cat\"]}}]}");
  EXPECT_NE(r.find("functions.json:2:"), std::string::npos) << r;
  EXPECT_NE(r.find("JSON Schema"), std::string::npos) << r;
  r = refusal(R"({"functions": [{"name": "x", "inputs": {"required": "text"}, "run": {"command": ["cat"]}}]})");
  EXPECT_NE(r.find("\"inputs\" is not a valid JSON Schema"), std::string::npos) << r;
  r = refusal(R"({"functions": [{"name": "x", "inputs": {}, "output_schema": {"$ref": "http://example.com/s.json"}, "run": {"command": ["cat"]}}]})");
  EXPECT_NE(r.find("output_schema"), std::string::npos) << r;
}

TEST_F(DeclarationTest, CommandsOutsideTheProjectAreRefused) {
  EXPECT_NE(refusal(R"({"functions": [{"name": "x", "inputs": {}, "run": {"command": ["/bin/true"]}}]})").find("absolute"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"functions": [{"name": "x", "inputs": {}, "run": {"command": ["../outside.sh"]}}]})").find("outside"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"functions": [{"name": "x", "inputs": {}, "run": {"command": ["./tools/none.sh"]}}]})").find("does not exist"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"functions": [{"name": "x", "inputs": {}, "run": {"command": ["./tools/plain.txt"]}}]})").find("not executable"),
            std::string::npos);
  fs::create_symlink("/bin/true", dir_ / "tools" / "escape");
  EXPECT_NE(refusal(R"({"functions": [{"name": "x", "inputs": {}, "run": {"command": ["./tools/escape"]}}]})").find("outside"),
            std::string::npos);
}

TEST_F(DeclarationTest, NamesTimeoutsCallersAndDuplicates) {
  EXPECT_NE(refusal(R"({"functions": [{"name": "-x", "inputs": {}, "run": {"command": ["cat"]}}]})").find("name rules"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"functions": [{"name": "x", "inputs": {}, "run": {"command": ["cat"]}, "timeout_seconds": 0}]})").find("timeout_seconds"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"functions": [{"name": "x", "inputs": {}, "run": {"command": ["cat"]}, "allowed_callers": ["bob"]}]})").find("account ids"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"functions": [{"name": "x", "inputs": {}, "run": {"command": ["cat"]}}, {"name": "X", "inputs": {}, "run": {"command": ["cat"]}}]})").find("twice"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"functions": [{"name": "x", "run": {"command": ["cat"]}}]})").find("\"inputs\""), std::string::npos);
  EXPECT_NE(refusal(R"({"functions": [{"name": "x", "inputs": {}, "run": {"claude": {}}}]})").find("\"prompt\""),
            std::string::npos);
}

// R-X7: "communication" is "direct" (the default) or "explicit", and explicit only for an agent runner; it survives
// the stored form.
TEST_F(DeclarationTest, CommunicationIsDirectOrExplicitForAgentsOnly_RX7) {
  const char* explicit_agent =
      R"({"functions": [{"name": "talk", "inputs": {}, "run": {"claude": {"prompt": "p"}}, "communication": "explicit"}]})";
  const Declaration d = parse_declaration(explicit_agent, dir_, "functions.json");
  ASSERT_EQ(d.functions.size(), 1u);
  EXPECT_TRUE(d.functions[0].explicit_communication);
  EXPECT_TRUE(declaration_from_json(declaration_to_json(d)).functions[0].explicit_communication);
  const Declaration plain = parse_declaration(
      R"({"functions": [{"name": "talk", "inputs": {}, "run": {"codex": {"prompt": "p"}}, "communication": "direct"}]})",
      dir_, "functions.json");
  EXPECT_FALSE(plain.functions[0].explicit_communication);
  EXPECT_FALSE(declaration_from_json(declaration_to_json(plain)).functions[0].explicit_communication);
  EXPECT_NE(refusal(R"({"functions": [{"name": "x", "inputs": {}, "run": {"command": ["cat"]}, "communication": "explicit"}]})")
                .find("for run.claude and run.codex"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"functions": [{"name": "x", "inputs": {}, "run": {"claude": {"prompt": "p"}}, "communication": "loud"}]})")
                .find("\"direct\""),
            std::string::npos);
  EXPECT_NE(refusal(R"({"functions": [{"name": "x", "inputs": {}, "run": {"claude": {"prompt": "p"}}, "communication": true}]})")
                .find("communication"),
            std::string::npos);
}

TEST_F(DeclarationTest, MissingFileIsRefusedWithItsPath) {
  try {
    load_declaration(dir_, AgentAllowance{}, "api");
    FAIL() << "a folder without .agentworks/functions.json was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_declaration);
    EXPECT_NE(std::string(e.what()).find(".agentworks/functions.json"), std::string::npos) << e.what();
  }
}

TEST(SchemaCheck, ViolationsNameThePathInTheValue) {
  const std::string schema =
      R"({"type": "object", "properties": {"text": {"type": "string"}, "opts": {"type": "object", "properties": {"n": {"type": "integer"}}}},
          "required": ["text"], "additionalProperties": false})";
  EXPECT_TRUE(validate(schema, R"({"text": "a"})", "arguments").empty());
  const auto wrong_type = validate(schema, R"({"text": 3})", "arguments");
  ASSERT_FALSE(wrong_type.empty());
  EXPECT_EQ(wrong_type.front().path, "arguments.text");
  const auto nested = validate(schema, R"({"text": "a", "opts": {"n": "x"}})", "arguments");
  ASSERT_FALSE(nested.empty());
  EXPECT_EQ(nested.front().path, "arguments.opts.n");
  const auto missing = describe(validate(schema, R"({})", "arguments"));
  EXPECT_NE(missing.find("text"), std::string::npos) << missing;
  const auto unknown = describe(validate(schema, R"({"text": "a", "extra": 1})", "arguments"));
  EXPECT_NE(unknown.find("extra"), std::string::npos) << unknown;
  EXPECT_FALSE(schema_problem(schema).has_value());
  EXPECT_TRUE(schema_problem(R"({"minLength": -1})").has_value());
  EXPECT_TRUE(schema_problem("[1]").has_value());
}

// The stored declaration is parsed and its inputs schemas compiled once per stored text, not once per call; a
// reload (new text) gets a new parse.
TEST_F(DeclarationTest, StoredDeclarationIsParsedOncePerText_RF1) {
  agentworks::server::Crew crew;
  crew.crew_id = "crw_parse_once";
  crew.declaration_json = declaration_to_json(parse_declaration(kGood, dir_, "functions.json"));
  const auto first = parsed_declaration(crew);
  ASSERT_EQ(first->declaration.functions.size(), 2U);
  ASSERT_EQ(first->inputs.size(), 2U);
  EXPECT_EQ(parsed_declaration(crew), first) << "the same text reuses the parse";

  Declaration fewer = first->declaration;
  fewer.functions.pop_back();
  crew.declaration_json = declaration_to_json(fewer);
  const auto reloaded = parsed_declaration(crew);
  EXPECT_NE(reloaded, first);
  EXPECT_EQ(reloaded->declaration.functions.size(), 1U);
  // The compiled inputs schema checks like the text form does.
  EXPECT_TRUE(reloaded->inputs[0]->check(R"({"text":"a b"})", "arguments").empty());
  const auto missing = reloaded->inputs[0]->check("{}", "arguments");
  ASSERT_EQ(missing.size(), 1U);
  EXPECT_EQ(describe(missing), describe(validate(fewer.functions[0].inputs_json, "{}", "arguments")));
}
