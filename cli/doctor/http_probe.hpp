// One GET to the agentworks server that keeps what ServerClient drops: the HTTP status of an error answer and the
// Date header (the doctor's clock check). The same trust rules as every client (server_trust.hpp).
#pragma once

#include <string>

#include "doctor/doctor_state.hpp"

namespace agentworks::cli::doctor {

// GET base_url + path with `token` (empty: none), a 3 s connect and 10 s total timeout. Never throws.
ServerAnswer probe_get(const std::string& base_url, const std::string& path, const std::string& token,
                       const std::string& ca_file);

// "Thu, 03 Dec 2026 07:40:00 GMT" (IMF-fixdate) -> Unix seconds; nullopt for anything else.
std::optional<std::time_t> parse_http_date(const std::string& text);

}  // namespace agentworks::cli::doctor
