#include "doctor/http_probe.hpp"

#include <curl/curl.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <strings.h>

#include "agentworks/error.hpp"
#include "agentworks/server_client.hpp"
#include "agentworks/server_trust.hpp"

namespace agentworks::cli::doctor {
namespace {

std::size_t append_body(char* data, std::size_t size, std::size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

// Keeps the value of a "Date:" header line (header names are case-insensitive).
std::size_t keep_date(char* data, std::size_t size, std::size_t count, void* user) {
  const std::size_t n = size * count;
  const std::string line(data, n);
  if (line.size() > 5 && strncasecmp(line.c_str(), "date:", 5) == 0) {
    std::string value = line.substr(5);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.erase(0, 1);
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) value.pop_back();
    *static_cast<std::string*>(user) = value;
  }
  return n;
}

// As ServerClient: loopback never goes through a proxy from the environment; the user's own no_proxy list stays.
std::string no_proxy_list() {
  std::string list = "localhost,127.0.0.1,::1";
  for (const char* name : {"no_proxy", "NO_PROXY"}) {
    if (const char* v = std::getenv(name); v != nullptr && v[0] != '\0') list += std::string(",") + v;
  }
  return list;
}

// The server's own certificate's "Expire date" (e.g. "Dec  6 14:00:00 2026 GMT") from libcurl's certificate info.
std::optional<std::time_t> leaf_certificate_expiry(CURL* curl) {
  curl_certinfo* info = nullptr;
  if (curl_easy_getinfo(curl, CURLINFO_CERTINFO, &info) != CURLE_OK || info == nullptr || info->num_of_certs < 1)
    return std::nullopt;
  for (curl_slist* field = info->certinfo[0]; field != nullptr; field = field->next) {
    const std::string text = field->data;
    if (text.rfind("Expire date:", 0) != 0) continue;
    std::tm tm{};
    const char* end = strptime(text.c_str() + 12, "%b %d %H:%M:%S %Y GMT", &tm);
    if (end == nullptr) return std::nullopt;
    return timegm(&tm);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::time_t> parse_http_date(const std::string& text) {
  static constexpr std::array<const char*, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  char weekday[4] = {0};
  char month[4] = {0};
  int day = 0, year = 0, hour = 0, minute = 0, second = 0;
  char zone[4] = {0};
  if (std::sscanf(text.c_str(), "%3s, %d %3s %d %d:%d:%d %3s", weekday, &day, month, &year, &hour, &minute, &second,
                  zone) != 8 ||
      std::strcmp(zone, "GMT") != 0) {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_mon = -1;
  for (std::size_t m = 0; m < kMonths.size(); ++m) {
    if (std::strcmp(month, kMonths[m]) == 0) tm.tm_mon = static_cast<int>(m);
  }
  if (tm.tm_mon < 0 || day < 1 || day > 31 || year < 1970 || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  tm.tm_mday = day;
  tm.tm_year = year - 1900;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  return timegm(&tm);
}

ServerAnswer probe_get(const std::string& base_url, const std::string& path, const std::string& token,
                       const std::string& ca_file) {
  ServerAnswer answer;
  try {
    check_server_url_security(base_url);
  } catch (const Error& e) {
    answer.error = e.what();
    answer.error_code = std::string(code_name(e.code()));
    return answer;
  }
  ensure_curl_initialized();
  CURL* curl = curl_easy_init();
  if (curl == nullptr) {
    answer.error = "cannot initialise libcurl";
    answer.error_code = "internal";
    return answer;
  }
  std::string url = base_url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  url += path;
  std::string body;
  std::string date;
  char errbuf[CURL_ERROR_SIZE] = {0};
  curl_slist* headers = curl_slist_append(nullptr, "Accept: application/json");
  const std::string auth = "Authorization: Bearer " + token;
  if (!token.empty()) headers = curl_slist_append(headers, auth.c_str());
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  const std::string no_proxy = no_proxy_list();
  curl_easy_setopt(curl, CURLOPT_NOPROXY, no_proxy.c_str());
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 3000L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 10000L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, keep_date);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &date);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "agentworks-doctor/0.1.0");
  apply_server_trust(curl, ca_file);
  const bool https = url.rfind("https://", 0) == 0;
  if (https) curl_easy_setopt(curl, CURLOPT_CERTINFO, 1L);
  const CURLcode rc = curl_easy_perform(curl);
  answer.received_at = std::time(nullptr);
  curl_slist_free_all(headers);
  if (rc != CURLE_OK) {
    const std::string detail = errbuf[0] != '\0' ? errbuf : curl_easy_strerror(rc);
    const Error e =
        is_certificate_failure(rc) ? certificate_error(base_url, detail) : unreachable_error(base_url, detail);
    answer.error = e.what();
    answer.error_code = std::string(code_name(e.code()));
    curl_easy_cleanup(curl);
    return answer;
  }
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &answer.status);
  if (https) answer.certificate_expires = leaf_certificate_expiry(curl);
  curl_easy_cleanup(curl);
  answer.answered = true;
  answer.body = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (answer.body.is_discarded()) answer.body = nullptr;
  if (!date.empty()) answer.date = parse_http_date(date);
  return answer;
}

}  // namespace agentworks::cli::doctor
