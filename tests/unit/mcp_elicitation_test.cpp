// The elicitation form `mcp serve --full` asks for a pending question (R-F3): the question's own schema when a form
// can show it (an object of primitive properties), else one string field `answer`.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "mcp/elicitation.hpp"

using nlohmann::json;
using agentworks::cli::mcp::requested_schema;

namespace {

const json kAnswerField = {{"type", "object"},
                           {"properties", {{"answer", {{"type", "string"}, {"title", "Answer"}}}}},
                           {"required", json::array({"answer"})}};

TEST(McpElicitation, PrimitiveObjectSchemaIsAskedAsItIs) {
  const json schema = {{"$schema", "http://json-schema.org/draft-07/schema#"},
                       {"type", "object"},
                       {"properties",
                        {{"target", {{"type", "string"}, {"enum", json::array({"staging", "prod"})}}},
                         {"force", {{"type", "boolean"}}},
                         {"replicas", {{"type", "integer"}, {"minimum", 1}}}}},
                       {"required", json::array({"target"})},
                       {"additionalProperties", false}};
  bool own = false;
  const json asked = requested_schema(schema, own);
  EXPECT_TRUE(own);
  EXPECT_EQ(asked, json({{"type", "object"}, {"properties", schema["properties"]}, {"required", json::array({"target"})}}));
}

TEST(McpElicitation, AnythingElseIsOneAnswerField) {
  for (const json& schema : {json(nullptr), json{{"type", "string"}}, json{{"type", "object"}},
                             json{{"type", "object"}, {"properties", {{"nested", {{"type", "object"}}}}}},
                             json{{"type", "object"}, {"properties", {{"list", {{"type", "array"}}}}}},
                             json{{"type", "object"}, {"properties", {{"untyped", json::object()}}}}}) {
    bool own = true;
    EXPECT_EQ(requested_schema(schema, own), kAnswerField) << schema.dump();
    EXPECT_FALSE(own) << schema.dump();
  }
}

}  // namespace
