// The person's login that attach uses (docs/protocol.md "attach"): the CLI config named by the request's `config`
// field, else the bridge's default config path.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "agentworks/config.hpp"

namespace agentworks::bridge {

// Throws bad_request for a relative path, unauthenticated when nobody is logged in, forbidden for a child login.
Config login_config(const nlohmann::json& req);

}  // namespace agentworks::bridge
