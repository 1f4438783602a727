#include "fetch_token.h"

namespace bb::runnerd {

std::string url_host(const std::string& url) {
  size_t scheme = url.find("://");
  if (scheme == std::string::npos) return "";
  const std::string proto = url.substr(0, scheme);
  if (proto != "https" && proto != "http") return "";
  std::string rest = url.substr(scheme + 3);
  rest = rest.substr(0, rest.find('/'));
  if (size_t at = rest.rfind('@'); at != std::string::npos) rest = rest.substr(at + 1);  // user@host
  if (!rest.empty() && rest[0] == '[') return rest.substr(0, rest.find(']') + 1);          // [::1]:port
  return rest.substr(0, rest.find(':'));
}

Result<std::unique_ptr<FetchTokens>> FetchTokens::create(const config::ApplianceConfig& config) {
  const std::string mode = config.reporter.auth_mode();
  if (mode == "off") return std::unique_ptr<FetchTokens>();
  auto credentials = github_api::load_credentials_from_env(mode, config.reporter.github_app_id);
  if (!credentials) return credentials.error();
  return std::unique_ptr<FetchTokens>(new FetchTokens(config, std::move(*credentials)));
}

FetchTokens::FetchTokens(const config::ApplianceConfig& config, github_api::Credentials credentials)
    : api_host_(url_host(config.reporter.github_api_url)),
      client_(config.reporter.github_api_url, std::move(credentials), clock_) {}

Result<std::optional<git::FetchCredential>> FetchTokens::for_fetch(const std::string& repository,
                                                                   const std::string& clone_url) {
  const std::string host = url_host(clone_url);
  if (host.empty() || (host != "github.com" && host != api_host_)) return std::optional<git::FetchCredential>();
  auto token = client_.installation_token(repository);
  if (!token) return token.error();
  git::FetchCredential credential;
  credential.secret = std::move(*token);
  return std::optional<git::FetchCredential>(std::move(credential));
}

}  // namespace bb::runnerd
