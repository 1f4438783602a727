// libFuzzer target for what webhookd reads from the network before anyone is
// authenticated: the request parser fed in pieces (the first byte picks the
// piece size, so header and body boundaries land everywhere), then the form
// decoder on the body and the JSON answer built from the parser's message.
// Whatever the bytes: no crash, no hang, limits held, and every answer valid
// JSON.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "http/form.h"
#include "http/request_parser.h"
#include "http/response.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t step = 1 + data[0] % 64;
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  bb::http::ParserLimits limits{1024, 4096};
  bb::http::RequestParser parser(limits);
  std::string buffer;
  using State = bb::http::RequestParser::State;
  for (size_t at = 0; at < input.size() && parser.state() != State::failed; at += step) {
    buffer.append(input.substr(at, step));
    for (State s = parser.parse(buffer); s != State::need_more; s = parser.parse(buffer)) {
      if (s == State::failed) break;
      if (s == State::complete) {
        if (parser.body().size() > limits.max_body_bytes) std::abort();
        (void)bb::http::form_field(parser.body(), "payload");
        (void)bb::http::media_type(parser.head().field("Content-Type"));
        parser.reset();
      }
    }
    if (buffer.size() > limits.max_header_bytes + step) std::abort();  // a header never piles up unbounded
  }
  if (parser.state() == State::failed) {
    const auto& f = parser.failure();
    if (f.status != 400 && f.status != 413 && f.status != 431) std::abort();
    auto answer = bb::http::error(f.status, f.message + std::string(input.substr(0, 16)));
    if (!nlohmann::json::accept(answer.body)) std::abort();
  }
  return 0;
}
