#include "github/payload_fields.h"

#include "util/simdjson.h"

#include <nlohmann/json.hpp>

namespace bb::github::detail {

namespace {

thread_local bool g_simdjson = true;

// The path's steps, one at a time.
class Steps {
 public:
  explicit Steps(std::string_view path) : rest_(path) {}
  // The next key; false after the last.
  bool next(std::string_view& key) {
    if (done_) return false;
    const size_t dot = rest_.find('.');
    key = rest_.substr(0, dot);
    if (dot == std::string_view::npos) done_ = true;
    else rest_.remove_prefix(dot + 1);
    return true;
  }

 private:
  std::string_view rest_;
  bool done_ = false;
};

class NlohmannFields final : public Fields {
 public:
  NlohmannFields(nlohmann::json root, std::string event) : Fields(std::move(event)), root_(std::move(root)) {}

  Scalar lookup(std::string_view path) const override {
    const nlohmann::json* cur = &root_;
    Steps steps(path);
    for (std::string_view key; steps.next(key);) {
      if (!cur->is_object()) return {};
      auto it = cur->find(key);
      if (it == cur->end()) return {};
      cur = &*it;
    }
    Scalar s;
    if (cur->is_null()) s.kind = Scalar::Kind::null;
    else if (cur->is_string()) s = {Scalar::Kind::string, cur->get_ref<const std::string&>(), 0, false};
    else if (cur->is_number_integer()) s = {Scalar::Kind::integer, {}, cur->get<int64_t>(), false};
    else if (cur->is_boolean()) s = {Scalar::Kind::boolean, {}, 0, cur->get<bool>()};
    else s.kind = Scalar::Kind::other;
    return s;
  }

 private:
  nlohmann::json root_;
};

namespace dom = simdjson::dom;

class SimdjsonFields final : public Fields {
 public:
  SimdjsonFields(std::unique_ptr<dom::parser> owned, dom::element root, std::string event)
      : Fields(std::move(event)), owned_(std::move(owned)), root_(root) {}

  Scalar lookup(std::string_view path) const override {
    dom::element cur = root_;
    Steps steps(path);
    for (std::string_view key; steps.next(key);) {
      dom::object o;
      if (cur.get_object().get(o)) return {};
      // The last of a repeated key, as nlohmann keeps it (at_key finds the first).
      bool found = false;
      for (dom::key_value_pair member : o)
        if (member.key == key) {
          cur = member.value;
          found = true;
        }
      if (!found) return {};
    }
    Scalar s;
    switch (cur.type()) {
      case dom::element_type::NULL_VALUE: s.kind = Scalar::Kind::null; break;
      case dom::element_type::STRING:
        s.kind = Scalar::Kind::string;
        s.text = std::string_view(cur.get_c_str().value_unsafe(), cur.get_string_length().value_unsafe());
        break;
      case dom::element_type::INT64:
        s.kind = Scalar::Kind::integer;
        s.integer = cur.get_int64().value_unsafe();
        break;
      case dom::element_type::UINT64:  // wraps, as nlohmann's get<int64_t>() does
        s.kind = Scalar::Kind::integer;
        s.integer = static_cast<int64_t>(cur.get_uint64().value_unsafe());
        break;
      case dom::element_type::BOOL:
        s.kind = Scalar::Kind::boolean;
        s.boolean = cur.get_bool().value_unsafe();
        break;
      default: s.kind = Scalar::Kind::other; break;
    }
    return s;
  }

 private:
  std::unique_ptr<dom::parser> owned_;  // a large payload's own parser, freed with the fields
  dom::element root_;
};

// Deliveries up to this size share one parser per thread, so its buffers
// are allocated once; a larger one (GitHub sends up to 25 MB) gets its own,
// freed after, so the daemon does not keep a buffer of its largest delivery.
constexpr size_t kSharedParserBytes = 1 << 20;

}  // namespace

Result<Scalar> Fields::find(std::string_view path) const {
  Scalar s = lookup(path);
  if (s.kind == Scalar::Kind::absent || s.kind == Scalar::Kind::null)
    return make_error(Errc::invalid_argument, event_ + " payload: missing field '" + std::string(path) + "'");
  return s;
}

Error Fields::wrong_type(std::string_view path, const char* expected) const {
  return make_error(Errc::invalid_argument,
                    event_ + " payload: field '" + std::string(path) + "' must be " + expected);
}

Result<std::string> Fields::string(std::string_view path) const {
  auto s = find(path);
  if (!s) return s.error();
  if (s->kind != Scalar::Kind::string) return wrong_type(path, "a string");
  return std::string(s->text);
}

Result<std::string> Fields::optional_string(std::string_view path) const {
  Scalar s = lookup(path);
  if (s.kind == Scalar::Kind::absent || s.kind == Scalar::Kind::null) return std::string();
  if (s.kind != Scalar::Kind::string) return wrong_type(path, "a string");
  return std::string(s.text);
}

Result<int64_t> Fields::integer(std::string_view path) const {
  auto s = find(path);
  if (!s) return s.error();
  if (s->kind != Scalar::Kind::integer) return wrong_type(path, "an integer");
  return s->integer;
}

Result<bool> Fields::boolean(std::string_view path) const {
  auto s = find(path);
  if (!s) return s.error();
  if (s->kind != Scalar::Kind::boolean) return wrong_type(path, "true or false");
  return s->boolean;
}

bool Fields::optional_bool(std::string_view path) const {
  Scalar s = lookup(path);
  return s.kind == Scalar::Kind::boolean && s.boolean;
}

bool Fields::has(std::string_view path) const {
  Scalar s = lookup(path);
  return s.kind != Scalar::Kind::absent && s.kind != Scalar::Kind::null;
}

std::unique_ptr<Fields> simdjson_fields(std::string_view body, std::string event) {
  if (!g_simdjson) return nullptr;
  thread_local dom::parser shared;
  std::unique_ptr<dom::parser> owned;
  if (body.size() > kSharedParserBytes) owned = std::make_unique<dom::parser>();
  dom::parser& parser = owned ? *owned : shared;
  dom::element root;
  // parse() reads a padded copy of the body (the parser's own buffer).
  if (parser.parse(body.data(), body.size()).get(root) || !root.is_object()) return nullptr;
  return std::make_unique<SimdjsonFields>(std::move(owned), root, std::move(event));
}

Result<std::unique_ptr<Fields>> nlohmann_fields(std::string_view body, std::string event) {
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(body);
  } catch (const std::exception& e) {
    return make_error(Errc::parse, "malformed JSON in " + event + " payload: " + e.what());
  }
  if (!root.is_object()) return make_error(Errc::invalid_argument, event + " payload is not a JSON object");
  return std::unique_ptr<Fields>(std::make_unique<NlohmannFields>(std::move(root), std::move(event)));
}

void use_simdjson(bool on) { g_simdjson = on; }
bool simdjson_enabled() { return g_simdjson; }

}  // namespace bb::github::detail
