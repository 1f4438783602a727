// The client half webhookd needs for its own liveness probe: one request's
// bytes and the status of the answer, both by Boost.Beast.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace bb::http {

// "GET <target> HTTP/1.1" with Host and Connection: close.
std::string request_bytes(std::string_view method, std::string_view target, std::string_view host);

// The status code of a complete response in `bytes`; nullopt while it is
// incomplete or when it is not HTTP.
std::optional<unsigned> response_status(std::string_view bytes);

}  // namespace bb::http
