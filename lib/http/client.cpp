#include "http/client.h"

#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <sstream>

namespace bb::http {

namespace bhttp = boost::beast::http;

std::string request_bytes(std::string_view method, std::string_view target, std::string_view host) {
  bhttp::request<bhttp::empty_body> m{bhttp::string_to_verb({method.data(), method.size()}),
                                      {target.data(), target.size()}, 11};
  m.set(bhttp::field::host, {host.data(), host.size()});
  m.set(bhttp::field::user_agent, "benchbox-webhookd-liveness");
  m.keep_alive(false);
  std::ostringstream out;
  out << m;
  return std::move(out).str();
}

std::optional<unsigned> response_status(std::string_view bytes) {
  bhttp::response_parser<bhttp::string_body> p;
  p.eager(true);
  boost::beast::error_code ec;
  p.put(boost::asio::const_buffer(bytes.data(), bytes.size()), ec);
  if (ec || !p.is_done()) return std::nullopt;
  return p.get().result_int();
}

}  // namespace bb::http
