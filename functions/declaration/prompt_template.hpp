// The task prompt of an agent function is a template over the call's checked inputs: `{{name}}` stands for the
// value of input property `name` (a string as it is, anything else as compact JSON, a missing one as nothing).
// A placeholder may differ from the property in case only ({{PR_NUMBER}} for pr_number).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace agentworks::functions {

// The names in `{{ name }}` placeholders, in order of appearance (repeats included).
std::vector<std::string> prompt_placeholders(const std::string& prompt);
// The property of the inputs schema (its "properties") that `name` refers to, or nullopt.
std::optional<std::string> placeholder_property(const std::string& inputs_schema_json, const std::string& name);
std::string render_prompt(const std::string& prompt, const std::string& inputs_schema_json,
                          const std::string& arguments_json);

}  // namespace agentworks::functions
