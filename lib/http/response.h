// HTTP responses as bytes for the wire, serialized by Boost.Beast, and the
// JSON bodies webhookd answers with.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace bb::http {

struct Response {
  unsigned status = 500;
  std::string body;  // JSON unless content_type says otherwise
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;  // extra, e.g. Retry-After, Allow
};

// Status line, Content-Type, Content-Length, Connection and the extra
// headers, then the body. `keep_alive` false adds "Connection: close";
// `head_only` (the answer to a HEAD request) leaves the body out.
std::string serialize(const Response& response, bool keep_alive, int version = 11, bool head_only = false);

// "HTTP/1.1 100 Continue" for a client that sent Expect: 100-continue.
std::string continue_response();

// {"error": message}, valid JSON whatever bytes `message` holds: invalid
// UTF-8 becomes U+FFFD (a delivery's own bytes often end up in a message).
Response error(unsigned status, std::string_view message);
// A JSON body from a value, with the same replacement rule.
Response json(unsigned status, const nlohmann::json& body);

}  // namespace bb::http
