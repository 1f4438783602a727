#include "http/request_parser.h"

// Beast 1.74 asserts n >= 5 in parse_chunk_header when a final chunk's
// bytes arrive a few at a time ("0\r\n", then "\r", then "\n"), which is
// valid input: the code after the assert handles it, and upstream fixed the
// assert itself (boostorg/beast#2861, 2024). Found by tests/fuzz. This is
// network input before authentication, so no assert may abort webhookd:
// Beast's asserts are off in this file (BOOST_VERIFY still evaluates).
#define BOOST_DISABLE_ASSERTS
#include <boost/beast/http/basic_parser.hpp>
#include <boost/beast/http/error.hpp>

#include <strings.h>

#include <limits>

namespace bb::http {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using beast::error_code;
using beast::string_view;

namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && ::strncasecmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

std::string RequestHead::field(std::string_view name) const {
  for (const auto& [n, v] : fields)
    if (iequals(n, name)) return v;
  return {};
}

size_t RequestHead::count(std::string_view name) const {
  size_t n = 0;
  for (const auto& f : fields) n += iequals(f.first, name) ? 1 : 0;
  return n;
}

// Beast calls these as it recognises each part. The body limit is ours, not
// Beast's, so that the caller sees the header (and can answer 404 or 415)
// before a too-large announced length is refused.
class RequestParser::Impl final : public bhttp::basic_parser<true> {
 public:
  explicit Impl(const ParserLimits& limits) : max_body_(limits.max_body_bytes) {
    header_limit(limits.max_header_bytes);
    // Not boost::none: Beast 1.74 compares the length with the optional
    // and an empty optional is less than any length.
    body_limit(std::numeric_limits<std::uint64_t>::max());
    eager(false);  // stop after the header
  }

  RequestHead head;
  std::string body;
  bool head_reported = false;

 private:
  void on_request_impl(bhttp::verb, string_view method, string_view target, int version,
                       error_code&) override {
    head.method.assign(method.data(), method.size());
    head.target.assign(target.data(), target.size());
    head.version = version;
  }
  void on_response_impl(int, string_view, int, error_code&) override {}
  void on_field_impl(bhttp::field, string_view name, string_view value, error_code&) override {
    head.fields.emplace_back(std::string(name.data(), name.size()), std::string(value.data(), value.size()));
  }
  void on_header_impl(error_code&) override {
    head.content_length = content_length() ? std::optional<uint64_t>(*content_length()) : std::nullopt;
    head.chunked = chunked();
    head.keep_alive = keep_alive();
  }
  void on_body_init_impl(const boost::optional<std::uint64_t>& length, error_code& ec) override {
    if (length && *length > max_body_) ec = bhttp::error::body_limit;
    // Deliberately no reserve(*length): memory follows the bytes received.
  }
  std::size_t on_body_impl(string_view data, error_code& ec) override { return append(data, ec); }
  void on_chunk_header_impl(std::uint64_t, string_view, error_code&) override {}
  std::size_t on_chunk_body_impl(std::uint64_t, string_view data, error_code& ec) override {
    return append(data, ec);
  }
  void on_finish_impl(error_code&) override {}

  std::size_t append(string_view data, error_code& ec) {
    if (body.size() + data.size() > max_body_) {
      ec = bhttp::error::body_limit;
      return 0;
    }
    body.append(data.data(), data.size());
    return data.size();
  }

  uint64_t max_body_;
};

RequestParser::RequestParser(ParserLimits limits) : impl_(std::make_unique<Impl>(limits)), limits_(limits) {}
RequestParser::~RequestParser() = default;
RequestParser::RequestParser(RequestParser&&) noexcept = default;
RequestParser& RequestParser::operator=(RequestParser&&) noexcept = default;

const RequestHead& RequestParser::head() const { return impl_->head; }
const std::string& RequestParser::body() const { return impl_->body; }
std::string RequestParser::take_body() { return std::move(impl_->body); }
uint64_t RequestParser::body_bytes() const { return impl_->body.size(); }

void RequestParser::reset() {
  impl_ = std::make_unique<Impl>(limits_);
  state_ = State::need_more;
  failure_ = {};
}

RequestParser::State RequestParser::parse(std::string& input) {
  size_t consumed = 0;
  State s = parse(std::string_view(input), consumed);
  input.erase(0, consumed);
  return s;
}

RequestParser::State RequestParser::parse(std::string_view input, size_t& consumed) {
  consumed = 0;
  if (state_ == State::complete || state_ == State::failed) return state_;
  Impl& p = *impl_;
  for (;;) {
    if (p.is_header_done() && !p.head_reported) {
      p.head_reported = true;
      p.eager(true);
      return state_ = State::head_done;
    }
    if (p.is_done()) return state_ = State::complete;
    if (consumed == input.size()) return state_ = State::need_more;
    error_code ec;
    size_t used = p.put(boost::asio::const_buffer(input.data() + consumed, input.size() - consumed), ec);
    consumed += used;
    if (ec == bhttp::error::need_more) {
      // Beast 1.74 bounds the header but not a chunk-size line or the
      // trailer after the last chunk (upstream added a limit later,
      // boostorg/beast#3077): without this, one endless chunk extension
      // would pile up in the caller's buffer.
      if (used == 0 && p.head_reported && input.size() - consumed > limits_.max_header_bytes) {
        failure_ = {400, "a chunk header or trailer is over " + std::to_string(limits_.max_header_bytes) + " bytes"};
        return state_ = State::failed;
      }
      if (used == 0) return state_ = State::need_more;
      continue;
    }
    if (ec) {
      if (ec == bhttp::error::header_limit) {
        failure_ = {431, "request header is over the limit of " + std::to_string(limits_.max_header_bytes) +
                             " bytes"};
      } else if (ec == bhttp::error::body_limit) {
        failure_ = {413, "body is over the limit of " + std::to_string(limits_.max_body_bytes) + " bytes"};
      } else if (ec == bhttp::error::bad_content_length) {
        failure_ = {400, "conflicting or malformed Content-Length"};
      } else if (ec == bhttp::error::bad_transfer_encoding) {
        failure_ = {400, "Transfer-Encoding conflicts with Content-Length or is repeated"};
      } else {
        failure_ = {400, "malformed HTTP request: " + ec.message()};
      }
      return state_ = State::failed;
    }
  }
}

}  // namespace bb::http
