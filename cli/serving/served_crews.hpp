// The Crews this computer serves (R-R1): what `crews register --serve-here` keeps so its runner can serve the
// Crew: the Crew, its folder here, the server and the runner's own connection (a secret: a private file per
// Crew beside the login, never printed).
#pragma once

#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace agentworks::cli {

struct ServedCrew {
  std::string crew_id;
  std::string crew_name;
  std::string dir;         // the Crew's folder on this computer
  std::string server_url;
  std::string ca_file;     // the login's CA bundle for https ("" the system store)
  std::string host;        // this computer's name, as the server shows it
  std::string token;       // the runner's connection: it reaches only this Crew's runner routes
};

std::filesystem::path served_crews_dir();
void save_served_crew(const ServedCrew& crew);
// nullopt when this computer does not serve `name`; Error(bad_request) naming the file when it is unreadable.
std::optional<ServedCrew> load_served_crew(const std::string& name);
void forget_served_crew(const std::string& name);
std::vector<ServedCrew> served_crews();

// This computer's name for the server's `crews show` (the host name, else "this computer").
std::string this_host();

// What this computer sends of the Crew in `dir` (R-R1): {"functions": TEXT, "crew": TEXT|null}, after the same
// checks the server makes, here, so a refusal names the file on this computer. Error(invalid_declaration).
nlohmann::json sent_declaration(const std::string& dir, const std::string& crew_name);

}  // namespace agentworks::cli
