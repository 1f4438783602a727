#include "http/response.h"

#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <sstream>

#include "util/json_text.h"

namespace bb::http {

namespace bhttp = boost::beast::http;

std::string serialize(const Response& r, bool keep_alive, int version, bool head_only) {
  bhttp::response<bhttp::string_body> m{static_cast<bhttp::status>(r.status), version};
  m.set(bhttp::field::server, "benchbox-webhookd");
  m.set(bhttp::field::content_type, r.content_type);
  for (const auto& [name, value] : r.headers) m.set(name, value);
  m.body() = r.body;
  m.keep_alive(keep_alive);
  m.prepare_payload();
  std::ostringstream out;
  out << m;
  std::string bytes = std::move(out).str();
  if (head_only) bytes.resize(bytes.size() - m.body().size());
  return bytes;
}

std::string continue_response() {
  bhttp::response<bhttp::empty_body> m{bhttp::status::continue_, 11};
  std::ostringstream out;
  out << m;
  return std::move(out).str();
}

Response error(unsigned status, std::string_view message) {
  return json(status, nlohmann::json{{"error", std::string(message)}});
}

Response json(unsigned status, const nlohmann::json& body) { return {status, dump_json(body), "application/json", {}}; }

}  // namespace bb::http
