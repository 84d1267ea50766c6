#include "declaration/schema_check.hpp"

#include <nlohmann/json.hpp>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "agentworks/error.hpp"

namespace agentworks::functions {
namespace {

void parse_schema(const nlohmann::json& schema_doc, valijson::Schema& schema) {
  valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
  valijson::adapters::NlohmannJsonAdapter adapter(schema_doc);
  parser.populateSchema(adapter, schema);  // no fetch callback: a remote $ref throws
}

// valijson's context is {"<root>", "[a]", "[0]", …}; the path reads "root.a[0]".
std::string path_of(const std::vector<std::string>& context, const std::string& root) {
  std::string out = root;
  for (std::size_t i = 1; i < context.size(); ++i) {
    const std::string& part = context[i];
    const bool index = part.size() > 2 && part.front() == '[' && part.back() == ']' &&
                       part.find_first_not_of("0123456789", 1) == part.size() - 1;
    if (index) {
      out += part;
    } else if (part.size() >= 2 && part.front() == '[' && part.back() == ']') {
      out += "." + part.substr(1, part.size() - 2);
    } else {
      out += "." + part;
    }
  }
  return out;
}

// Lines that only say "a child failed" repeat what the deeper line says.
bool wrapper_line(const std::string& description) {
  return description.rfind("Failed to validate against schema associated with", 0) == 0 ||
         description.rfind("Failed to validate item", 0) == 0;
}

}  // namespace

std::optional<std::string> schema_problem(const std::string& schema_json) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(schema_json);
  } catch (const std::exception& e) {
    return std::string("not JSON: ") + e.what();
  }
  if (!doc.is_object() && !doc.is_boolean()) return "a schema must be an object (or true/false)";
  try {
    valijson::Schema schema;
    parse_schema(doc, schema);
  } catch (const std::exception& e) {
    return std::string("not a valid JSON Schema (draft-07): ") + e.what();
  }
  return std::nullopt;
}

struct CompiledSchema::Parsed {
  valijson::Schema schema;
};

CompiledSchema::CompiledSchema(std::unique_ptr<Parsed> parsed) : parsed_(std::move(parsed)) {}
CompiledSchema::~CompiledSchema() = default;

std::shared_ptr<const CompiledSchema> CompiledSchema::compile(const std::string& schema_json) {
  auto parsed = std::make_unique<Parsed>();
  try {
    parse_schema(nlohmann::json::parse(schema_json), parsed->schema);
  } catch (const std::exception& e) {
    throw Error(ErrorCode::internal, std::string("a stored schema no longer parses: ") + e.what());
  }
  return std::shared_ptr<const CompiledSchema>(new CompiledSchema(std::move(parsed)));
}

std::vector<SchemaViolation> validate(const std::string& schema_json, const std::string& value_json,
                                      const std::string& root, std::size_t max) {
  return CompiledSchema::compile(schema_json)->check(value_json, root, max);
}

std::vector<SchemaViolation> CompiledSchema::check(const std::string& value_json, const std::string& root,
                                                   std::size_t max) const {
  const valijson::Schema& schema = parsed_->schema;
  const nlohmann::json value = nlohmann::json::parse(value_json);
  valijson::Validator validator;
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter adapter(value);
  std::vector<SchemaViolation> out;
  if (validator.validate(schema, adapter, &results)) return out;
  valijson::ValidationResults::Error e;
  std::vector<SchemaViolation> wrappers;
  while (results.popError(e)) {
    SchemaViolation v{path_of(e.context, root), e.description};
    if (wrapper_line(e.description)) {
      wrappers.push_back(std::move(v));
    } else if (out.size() < max) {
      out.push_back(std::move(v));
    }
  }
  if (out.empty() && !wrappers.empty()) out.push_back(wrappers.front());
  if (out.empty()) out.push_back({root, "does not match the schema"});
  return out;
}

std::string describe(const std::vector<SchemaViolation>& violations) {
  std::string out;
  for (const auto& v : violations) {
    if (!out.empty()) out += "; ";
    out += v.path + ": " + v.message;
  }
  return out;
}

}  // namespace agentworks::functions
