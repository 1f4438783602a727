// One HTTP/1.1 request at a time from a byte stream, parsed by Boost.Beast's
// basic_parser (RFC 7230 framing, chunked decoding, header and body limits,
// the request-smuggling checks: conflicting Content-Length values, a
// Content-Length beside Transfer-Encoding). Pure: no sockets, no clock.
//
// Why a parser of our own choosing and not a server library: webhookd must
// answer every refusal itself (a 431 or a mid-body 413 in JSON), bound
// memory by the bytes that really arrived, and decide which connection
// gives way when the door is full. libmicrohttpd 0.9.75, the version in
// Debian 12, can do none of those (it cannot answer mid-body, writes its own
// HTML errors, and reserves a body's announced length). So webhookd owns the
// sockets and Beast owns the grammar.
//
// The body grows with the bytes received, never with what Content-Length
// announces: a client that announces 25 MiB and sends nothing costs nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bb::http {

struct ParserLimits {
  uint32_t max_header_bytes = 32 * 1024;  // request line and fields together
  uint64_t max_body_bytes = 25ull * 1024 * 1024;
};

struct RequestHead {
  std::string method;  // as sent, e.g. "POST"
  std::string target;  // e.g. "/webhook"
  int version = 11;    // 10 or 11
  std::vector<std::pair<std::string, std::string>> fields;  // in order, names as sent
  std::optional<uint64_t> content_length;
  bool chunked = false;
  bool keep_alive = true;  // the client allows another request on this connection

  // The first value of a field (names compare case-insensitively), or "".
  std::string field(std::string_view name) const;
  size_t count(std::string_view name) const;
};

// Why a request cannot be read any further, as the HTTP answer it deserves.
struct ParseFailure {
  unsigned status = 400;  // 400, 413 or 431
  std::string message;
};

class RequestParser {
 public:
  enum class State {
    need_more,     // feed more bytes
    head_done,     // the header is complete: head() is valid; call parse() again for the body
    complete,      // the whole request is in: head() and body()
    failed,        // failure() says why; the connection cannot be reused
  };

  explicit RequestParser(ParserLimits limits = {});
  ~RequestParser();
  RequestParser(RequestParser&&) noexcept;
  RequestParser& operator=(RequestParser&&) noexcept;

  // Parses from the front of `input` and erases what it consumed. Stops
  // once after the header (head_done) so the caller can refuse a request
  // before reading its body, and at the end of the request: bytes after it
  // (a pipelined next request) stay in `input`.
  State parse(std::string& input);
  // The same on bytes the caller keeps: sets `consumed`; what is left must
  // be presented again (with more after it) on the next call.
  State parse(std::string_view input, size_t& consumed);

  State state() const { return state_; }
  const RequestHead& head() const;
  // Body bytes received so far (all of them once complete).
  const std::string& body() const;
  std::string take_body();
  uint64_t body_bytes() const;
  bool header_started() const;  // at least one byte of this request arrived
  const ParseFailure& failure() const { return failure_; }

  // Ready for the next request on the same connection (keep-alive).
  void reset();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
  ParserLimits limits_;
  State state_ = State::need_more;
  ParseFailure failure_;
};

}  // namespace bb::http
