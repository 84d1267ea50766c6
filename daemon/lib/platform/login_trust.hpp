// Which CA bundle the bridge verifies a server with: the one the person's login recorded (`agentworks login
// --ca-file`) when the URL is that login's server, else none (the system store). The login file is looked at for
// each request (login_file.hpp), so a new login applies without restarting the bridge.
#pragma once

#include <string>

namespace agentworks::bridge {

std::string ca_file_for(const std::string& url);

}  // namespace agentworks::bridge
