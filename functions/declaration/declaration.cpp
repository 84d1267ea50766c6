#include "declaration/declaration.hpp"

#include <unistd.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "agentworks/error.hpp"
#include "agentworks/path_inside.hpp"
#include "agentworks/regular_file.hpp"
#include "agentworks/sha256.hpp"
#include "agentworks/validation.hpp"
#include "declaration/prompt_template.hpp"
#include "declaration/schema_check.hpp"

namespace agentworks::functions {

using nlohmann::json;

namespace {

int line_at(const std::string& text, std::size_t offset) {
  int line = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i)
    if (text[i] == '\n') ++line;
  return line;
}

// The line of `key` inside the function named `function_name` (anchored at its "name" member), else of the key's
// first appearance. JSON parsers do not keep positions; this finds the line a person needs to look at.
int line_of(const std::string& text, const std::string& function_name, const std::string& key) {
  std::size_t anchor = std::string::npos;
  if (!function_name.empty()) {
    const std::regex name_re("\"name\"\\s*:\\s*\"" + std::regex_replace(function_name, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") + "\"");
    std::smatch m;
    if (std::regex_search(text, m, name_re)) anchor = static_cast<std::size_t>(m.position(0));
  }
  const std::string quoted = "\"" + key + "\"";
  if (anchor != std::string::npos) {
    // The function's own object: from the '{' before the name to the one after.
    const std::size_t open = text.rfind('{', anchor);
    const std::size_t after = text.find(quoted, open == std::string::npos ? 0 : open);
    if (after != std::string::npos) return line_at(text, after);
    return line_at(text, anchor);
  }
  const std::size_t first = text.find(quoted);
  return first == std::string::npos ? 1 : line_at(text, first);
}


[[noreturn]] void refuse(const std::string& shown_path, int line, const std::string& reason) {
  throw Error(ErrorCode::invalid_declaration, shown_path + ":" + std::to_string(line) + ": " + reason +
                                                  "; the declaration in force is unchanged");
}

// The file's JSON, or the refusal naming the line of the first syntax error.
json parse_file_text(const std::string& text, const std::string& shown_path) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    std::string why = e.what();
    if (const auto colon = why.rfind(": "); colon != std::string::npos) why = why.substr(colon + 2);
    refuse(shown_path, line_at(text, e.byte > 0 ? e.byte - 1 : 0), "invalid JSON: " + why);
  }
}

// A command is a program on PATH by bare name, or a path inside the project (relative to it) that exists and is
// executable; an absolute path or one that resolves outside the folder is refused.
std::optional<std::string> command_problem(const std::string& program, const std::filesystem::path& crew_dir) {
  if (program.empty()) return "run.command[0] is empty";
  if (program.find('/') == std::string::npos) return std::nullopt;
  if (program.front() == '/') return "run.command[0] '" + program + "' is an absolute path: name a file inside the project (e.g. ./tools/run.sh) or a program on PATH";
  std::error_code ec;
  const auto resolved = std::filesystem::weakly_canonical(crew_dir / program, ec);
  if (ec || !path_inside(crew_dir.string(), resolved.string()))
    return "run.command[0] '" + program + "' is outside the project folder";
  if (!std::filesystem::is_regular_file(resolved, ec))
    return "run.command[0] '" + program + "' does not exist in the project";
  if (::access(resolved.c_str(), X_OK) != 0) return "run.command[0] '" + program + "' is not executable (chmod +x it)";
  return std::nullopt;
}

// The names `{{name}}` in a prompt refers to: each must be a property of the inputs schema.
std::optional<std::string> placeholder_problem(const std::string& prompt, const std::string& inputs_json) {
  for (const auto& name : prompt_placeholders(prompt)) {
    if (!placeholder_property(inputs_json, name))
      return "the prompt names {{" + name + "}}, which is not a property of \"inputs\"";
  }
  return std::nullopt;
}

// `prompt_key`: "prompt" for a function's task, "instructions" for the Crew's agent (crew.json).
std::optional<std::string> agent_run_problem(const json& a, Runner runner, const std::string& inputs_json,
                                             AgentRun& out, const std::string& prompt_key = "prompt") {
  if (!a.is_object()) return "must be an object with at least \"" + prompt_key + "\"";
  const bool claude = runner == Runner::claude;
  std::set<std::string> known = claude ? std::set<std::string>{"allowed_tools", "permission_mode", "model", "max_turns"}
                                       : std::set<std::string>{"sandbox", "model"};
  known.insert(prompt_key);
  for (const auto& [key, value] : a.items()) {
    if (known.count(key) == 0) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      return "unknown key '" + key + "' (known: " + list + ")";
    }
  }
  if (!a.contains(prompt_key) || !a[prompt_key].is_string() || a[prompt_key].get<std::string>().empty())
    return "\"" + prompt_key + "\" (" + (prompt_key == "prompt" ? "the task" : "what the agent is for") +
           ", a non-empty string) is required";
  out.prompt = a[prompt_key].get<std::string>();
  if (out.prompt.size() > kMaxPromptBytes) return "\"" + prompt_key + "\" is over 64 KiB";
  if (auto p = placeholder_problem(out.prompt, inputs_json)) return p;
  if (a.contains("model") && !a["model"].is_null()) {
    if (!a["model"].is_string() || a["model"].get<std::string>().empty()) return std::string("\"model\" must be a name or null");
    out.model = a["model"].get<std::string>();
  }
  if (claude) {
    if (a.contains("allowed_tools")) {
      if (!a["allowed_tools"].is_array()) return std::string("\"allowed_tools\" must be an array of tool names");
      for (const auto& t : a["allowed_tools"]) {
        if (!t.is_string() || t.get<std::string>().empty() || t.get<std::string>().find(',') != std::string::npos)
          return std::string("\"allowed_tools\" holds tool names such as \"Read\" or \"Bash(git diff:*)\" (no commas)");
        out.allowed_tools.push_back(t.get<std::string>());
      }
    }
    if (a.contains("permission_mode")) {
      static const std::set<std::string> modes = {"default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"};
      if (!a["permission_mode"].is_string() || modes.count(a["permission_mode"].get<std::string>()) == 0)
        return std::string("\"permission_mode\" must be one of default, acceptEdits, plan, dontAsk, bypassPermissions");
      out.permission_mode = a["permission_mode"].get<std::string>();
    }
    if (a.contains("max_turns") && !a["max_turns"].is_null()) {
      const json& t = a["max_turns"];
      if (!t.is_number_integer() || t.get<long long>() < 1 || t.get<long long>() > 1000)
        return std::string("\"max_turns\" must be an integer from 1 to 1000 or null");
      out.max_turns = t.get<int>();
    }
  } else if (a.contains("sandbox")) {
    static const std::set<std::string> sandboxes = {"read-only", "workspace-write", "danger-full-access"};
    if (!a["sandbox"].is_string() || sandboxes.count(a["sandbox"].get<std::string>()) == 0)
      return std::string("\"sandbox\" must be one of read-only, workspace-write, danger-full-access");
    out.sandbox = a["sandbox"].get<std::string>();
  }
  return std::nullopt;
}

FunctionDecl parse_function(const json& f, std::size_t index, const std::string& text,
                            const std::filesystem::path& crew_dir, const std::string& shown_path,
                            const AgentAllowance& allowance, const std::string& crew_name) {
  const std::string where = "functions[" + std::to_string(index) + "]";
  if (!f.is_object()) refuse(shown_path, line_of(text, "", "functions"), where + " must be an object");
  FunctionDecl d;
  if (f.contains("name") && f["name"].is_string()) d.name = f["name"].get<std::string>();
  auto fail = [&](const std::string& key, const std::string& reason) {
    refuse(shown_path, line_of(text, d.name, key), where + (d.name.empty() ? "" : " (" + d.name + ")") + ": " + reason);
  };
  static const std::set<std::string> known = {"name",    "description",     "inputs",
                                              "output_schema", "run", "timeout_seconds",
                                              "idle_timeout_seconds", "allowed_callers", "communication"};
  for (const auto& [key, value] : f.items())
    if (known.count(key) == 0) fail(key, "unknown key '" + key + "' (known: name, description, inputs, output_schema, run, timeout_seconds, idle_timeout_seconds, allowed_callers, communication)");
  if (!f.contains("name") || !f["name"].is_string()) fail("name", "\"name\" (a string) is required");
  if (!valid_agent_name(d.name))
    fail("name", "name '" + d.name + "' breaks the name rules (1-64 of letters, digits, '.', '_', '-', starting with a letter or digit)");
  if (f.contains("description")) {
    if (!f["description"].is_string()) fail("description", "\"description\" must be a string");
    d.description = f["description"].get<std::string>();
    if (d.description.size() > 2000) fail("description", "\"description\" is over 2,000 bytes");
  }
  if (!f.contains("inputs")) fail("inputs", "\"inputs\" (a JSON Schema for the arguments) is required");
  d.inputs_json = f["inputs"].dump();
  if (auto p = schema_problem(d.inputs_json)) fail("inputs", "\"inputs\" is " + *p);
  if (f.contains("output_schema") && !f["output_schema"].is_null()) {
    d.output_schema_json = f["output_schema"].dump();
    if (auto p = schema_problem(*d.output_schema_json)) fail("output_schema", "\"output_schema\" is " + *p);
  }
  if (!f.contains("run") || !f["run"].is_object())
    fail("run", "\"run\" (an object such as {\"command\": [\"./tools/x.sh\"]} or {\"claude\": {\"prompt\": \"...\"}}) is required");
  const json& run = f["run"];
  for (const auto& [key, value] : run.items())
    if (key != "command" && key != "claude" && key != "codex")
      fail(key, "unknown key 'run." + key + "' (known: command, claude, codex)");
  if (run.size() != 1) fail("run", "\"run\" takes exactly one of command, claude, codex");
  if (run.contains("command")) {
    if (!run["command"].is_array() || run["command"].empty())
      fail("command", "run.command must be a non-empty array of strings");
    for (const auto& part : run["command"]) {
      if (!part.is_string()) fail("command", "run.command must hold only strings");
      d.command.push_back(part.get<std::string>());
    }
    // Without a folder (a served Crew's declaration on the server) its runner checks the commands.
    if (!crew_dir.empty())
      if (auto p = command_problem(d.command.front(), crew_dir)) fail("command", *p);
  } else {
    d.runner = run.contains("claude") ? Runner::claude : Runner::codex;
    const std::string key = runner_name(d.runner);
    if (auto p = agent_run_problem(run[key], d.runner, d.inputs_json, d.agent)) fail(key, "run." + key + ": " + *p);
    if (auto breach = allowance_breach(allowance, d, crew_name))
      fail(breach->key, breach->what + "; widen it with " + breach->fix + " or remove it");
    d.idle_timeout_seconds = kDefaultAgentIdleSeconds;
  }
  if (f.contains("timeout_seconds")) {
    const json& t = f["timeout_seconds"];
    if (!t.is_number_integer() || t.get<long long>() < 1 || t.get<long long>() > kMaxTimeoutSeconds)
      fail("timeout_seconds", "\"timeout_seconds\" must be an integer from 1 to 86400");
    d.timeout_seconds = t.get<int>();
  }
  if (f.contains("idle_timeout_seconds")) {
    const json& t = f["idle_timeout_seconds"];
    if (!t.is_number_integer() || t.get<long long>() < 0 || t.get<long long>() > kMaxTimeoutSeconds)
      fail("idle_timeout_seconds", "\"idle_timeout_seconds\" must be an integer from 0 (none) to 86400");
    d.idle_timeout_seconds = t.get<int>();
  }
  if (f.contains("communication")) {  // R-X7
    const json& c = f["communication"];
    const std::string mode = c.is_string() ? c.get<std::string>() : std::string();
    if (mode != "explicit" && mode != "direct")
      fail("communication", "\"communication\" must be \"direct\" (the final text is the answer) or \"explicit\" "
                            "(the agent answers with send_message)");
    if (mode == "explicit" && d.runner == Runner::command)
      fail("communication", "\"communication\": \"explicit\" is for run.claude and run.codex (a command's output "
                            "is its answer)");
    d.explicit_communication = mode == "explicit";
  }
  if (f.contains("allowed_callers")) {
    const json& a = f["allowed_callers"];
    if (!a.is_array()) fail("allowed_callers", "\"allowed_callers\" must be an array of account ids and agents");
    for (const auto& id : a) {
      if (!id.is_string() || !parse_allowed_caller(id.get<std::string>()))
        fail("allowed_callers",
             "\"allowed_callers\" holds account ids such as \"acc_…\" (agentworks status shows yours), "
             "\"agent:NAME\" (an agent of your account) or \"agent:NAME@acc_…\" (an agent of another account)");
      d.allowed_callers.push_back(id.get<std::string>());
    }
  }
  return d;
}

}  // namespace

std::optional<AllowedCaller> parse_allowed_caller(const std::string& entry) {
  const auto valid_account = [](const std::string& id) { return id.size() > 4 && id.rfind("acc_", 0) == 0; };
  if (entry.rfind("agent:", 0) != 0) {
    if (!valid_account(entry)) return std::nullopt;
    return AllowedCaller{entry, std::nullopt};
  }
  const std::string rest = entry.substr(6);
  const auto at = rest.find('@');
  AllowedCaller c{at == std::string::npos ? "" : rest.substr(at + 1), rest.substr(0, at)};
  if (!valid_agent_name(*c.agent_name) || (at != std::string::npos && !valid_account(c.account_id)))
    return std::nullopt;
  return c;
}

const char* runner_name(Runner r) {
  switch (r) {
    case Runner::claude: return "claude";
    case Runner::codex: return "codex";
    case Runner::command: break;
  }
  return "command";
}

std::filesystem::path declaration_path(const std::filesystem::path& crew_dir) {
  return crew_dir / ".agentworks" / "functions.json";
}

std::filesystem::path crew_file_path(const std::filesystem::path& crew_dir) {
  return crew_dir / ".agentworks" / "crew.json";
}

void parse_crew_file(const std::string& text, const std::string& shown_path, const AgentAllowance& allowance,
                     const std::string& crew_name, Declaration& d) {
  const json doc = parse_file_text(text, shown_path);
  if (!doc.is_object()) refuse(shown_path, 1, "the file must be an object {\"agent\": {...}, \"messaging\": true}");
  for (const auto& [key, value] : doc.items())
    if (key != "agent" && key != "messaging")
      refuse(shown_path, line_of(text, "", key), "unknown key '" + key + "' (known: agent, messaging)");
  if (doc.contains("messaging")) {
    if (!doc["messaging"].is_boolean())
      refuse(shown_path, line_of(text, "", "messaging"), "\"messaging\" must be true or false");
    d.messaging = doc["messaging"].get<bool>();
  }
  if (!doc.contains("agent") || doc["agent"].is_null()) return;
  const json& agent = doc["agent"];
  if (!agent.is_object() || agent.size() != 1 || (!agent.contains("claude") && !agent.contains("codex")))
    refuse(shown_path, line_of(text, "", "agent"),
           "\"agent\" takes exactly one of claude, codex: {\"claude\": {\"instructions\": \"...\"}}");
  FunctionDecl a;
  a.name = kCrewAgentName;
  a.inputs_json = "{}";
  a.runner = agent.contains("claude") ? Runner::claude : Runner::codex;
  const std::string key = runner_name(a.runner);
  if (auto p = agent_run_problem(agent[key], a.runner, a.inputs_json, a.agent, "instructions"))
    refuse(shown_path, line_of(text, "", key), "agent." + key + ": " + *p);
  if (auto breach = allowance_breach(allowance, a, crew_name))
    refuse(shown_path, line_of(text, "", breach->key), breach->what + "; widen it with " + breach->fix + " or remove it");
  a.idle_timeout_seconds = kDefaultAgentIdleSeconds;
  d.agent = std::move(a);
}

Declaration load_declaration(const std::filesystem::path& crew_dir, const AgentAllowance& allowance,
                             const std::string& crew_name) {
  const auto path = declaration_path(crew_dir);
  // Read on the server's loop: a FIFO or device here must be refused, never waited on.
  const RegularFileRead file = read_regular_file(path, kMaxDeclarationBytes);
  switch (file.outcome) {
    case RegularFileRead::Outcome::ok: break;
    case RegularFileRead::Outcome::missing:
      refuse(path.string(), 0, "no such file (create it; docs/functions.md shows the format)");
    case RegularFileRead::Outcome::too_large: refuse(path.string(), 0, "the file is over 1 MiB");
    case RegularFileRead::Outcome::not_regular:
      refuse(path.string(), 0, "it " + file.reason + " (make it a plain file in the Crew's folder)");
    case RegularFileRead::Outcome::unreadable: refuse(path.string(), 0, "cannot read it: " + file.reason);
  }
  Declaration d = parse_declaration(file.text, crew_dir, path.string(), allowance, crew_name);
  const auto crew_path = crew_file_path(crew_dir);
  const RegularFileRead crew_file = read_regular_file(crew_path, kMaxDeclarationBytes);
  switch (crew_file.outcome) {
    case RegularFileRead::Outcome::ok: parse_crew_file(crew_file.text, crew_path.string(), allowance, crew_name, d); break;
    case RegularFileRead::Outcome::missing: break;  // no agent of its own; messaging has nobody to answer
    case RegularFileRead::Outcome::too_large: refuse(crew_path.string(), 0, "the file is over 1 MiB");
    case RegularFileRead::Outcome::not_regular:
      refuse(crew_path.string(), 0, "it " + crew_file.reason + " (make it a plain file in the Crew's folder)");
    case RegularFileRead::Outcome::unreadable: refuse(crew_path.string(), 0, "cannot read it: " + crew_file.reason);
  }
  return d;
}

Declaration parse_sent_declaration(const std::string& functions_text, const std::optional<std::string>& crew_text,
                                   const AgentAllowance& allowance, const std::string& crew_name) {
  if (functions_text.size() > kMaxDeclarationBytes || (crew_text && crew_text->size() > kMaxDeclarationBytes))
    refuse(".agentworks/functions.json", 0, "the file is over 1 MiB");
  Declaration d = parse_declaration(functions_text, {}, ".agentworks/functions.json", allowance, crew_name);
  if (crew_text) parse_crew_file(*crew_text, ".agentworks/crew.json", allowance, crew_name, d);
  return d;
}

std::string declaration_hash(const std::string& declaration_json) { return sha256_hex(declaration_json); }

Declaration parse_declaration(const std::string& text, const std::filesystem::path& crew_dir,
                              const std::string& shown_path, const AgentAllowance& allowance,
                              const std::string& crew_name) {
  const json doc = parse_file_text(text, shown_path);
  if (!doc.is_object()) refuse(shown_path, 1, "the file must be an object {\"functions\": [...]}");
  for (const auto& [key, value] : doc.items())
    if (key != "functions") refuse(shown_path, line_of(text, "", key), "unknown key '" + key + "' (known: functions)");
  if (!doc.contains("functions") || !doc["functions"].is_array())
    refuse(shown_path, 1, "\"functions\" (an array) is required");
  if (doc["functions"].size() > kMaxFunctions) refuse(shown_path, 1, "more than 100 functions");
  Declaration d;
  std::set<std::string> names;
  std::size_t i = 0;
  for (const auto& f : doc["functions"]) {
    FunctionDecl fn = parse_function(f, i++, text, crew_dir, shown_path, allowance, crew_name);
    if (!names.insert(fold_name(fn.name)).second)
      refuse(shown_path, line_of(text, fn.name, "name"), "function '" + fn.name + "' is declared twice");
    d.functions.push_back(std::move(fn));
  }
  return d;
}

namespace {

json run_to_json(const FunctionDecl& f) {
  if (f.runner == Runner::command) return {{"command", f.command}};
  const AgentRun& a = f.agent;
  json o{{"prompt", a.prompt}, {"model", a.model ? json(*a.model) : json(nullptr)}};
  if (f.runner == Runner::claude) {
    o["allowed_tools"] = a.allowed_tools;
    o["permission_mode"] = a.permission_mode;
    o["max_turns"] = a.max_turns ? json(*a.max_turns) : json(nullptr);
  } else {
    o["sandbox"] = a.sandbox;
  }
  return {{runner_name(f.runner), o}};
}

void run_from_json(const json& run, FunctionDecl& fn) {
  if (run.contains("command")) {
    fn.command = run.at("command").get<std::vector<std::string>>();
    return;
  }
  fn.runner = run.contains("claude") ? Runner::claude : Runner::codex;
  const json& o = run.at(runner_name(fn.runner));
  fn.agent.prompt = o.at("prompt").get<std::string>();
  if (o.contains("model") && !o["model"].is_null()) fn.agent.model = o["model"].get<std::string>();
  if (fn.runner == Runner::claude) {
    fn.agent.allowed_tools = o.at("allowed_tools").get<std::vector<std::string>>();
    fn.agent.permission_mode = o.at("permission_mode").get<std::string>();
    if (!o.at("max_turns").is_null()) fn.agent.max_turns = o["max_turns"].get<int>();
  } else {
    fn.agent.sandbox = o.at("sandbox").get<std::string>();
  }
}

}  // namespace

std::string declaration_to_json(const Declaration& d) {
  json fns = json::array();
  for (const auto& f : d.functions) {
    json o{{"name", f.name},
           {"description", f.description},
           {"inputs", json::parse(f.inputs_json)},
           {"output_schema", f.output_schema_json ? json::parse(*f.output_schema_json) : json(nullptr)},
           {"run", run_to_json(f)},
           {"timeout_seconds", f.timeout_seconds},
           {"idle_timeout_seconds", f.idle_timeout_seconds},
           {"allowed_callers", f.allowed_callers}};
    if (f.explicit_communication) o["communication"] = std::string("explicit");
    fns.push_back(std::move(o));
  }
  json out{{"functions", fns}, {"messaging", d.messaging}};
  if (d.agent) out["agent"] = run_to_json(*d.agent);
  return out.dump();
}

Declaration declaration_from_json(const std::string& text) {
  const json doc = json::parse(text);
  Declaration d;
  for (const auto& f : doc.at("functions")) {
    FunctionDecl fn;
    fn.name = f.at("name").get<std::string>();
    fn.description = f.at("description").get<std::string>();
    fn.inputs_json = f.at("inputs").dump();
    if (!f.at("output_schema").is_null()) fn.output_schema_json = f.at("output_schema").dump();
    run_from_json(f.at("run"), fn);
    fn.timeout_seconds = f.at("timeout_seconds").get<int>();
    fn.idle_timeout_seconds = f.value("idle_timeout_seconds", 0);
    fn.allowed_callers = f.at("allowed_callers").get<std::vector<std::string>>();
    fn.explicit_communication = f.contains("communication") && f["communication"].get<std::string>() == "explicit";
    d.functions.push_back(std::move(fn));
  }
  d.messaging = doc.value("messaging", true);
  if (doc.contains("agent")) {
    FunctionDecl a;
    a.name = kCrewAgentName;
    a.inputs_json = "{}";
    run_from_json(doc["agent"], a);
    a.idle_timeout_seconds = kDefaultAgentIdleSeconds;
    d.agent = std::move(a);
  }
  return d;
}

const FunctionDecl* find_function(const Declaration& d, const std::string& name) {
  const std::string folded = fold_name(name);
  for (const auto& f : d.functions)
    if (fold_name(f.name) == folded) return &f;
  return nullptr;
}

}  // namespace agentworks::functions
