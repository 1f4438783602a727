#include "bus/dict.h"

#include <cstdlib>

#include <string>
#include <nlohmann/json.hpp>

namespace bb::bus {

namespace {

// A list of strings as the variant "as"; any other list is refused.
int append_strings(sd_bus_message* m, const nlohmann::json& list) {
  for (const auto& v : list)
    if (!v.is_string()) return -EINVAL;
  int r = sd_bus_message_open_container(m, 'v', "as");
  if (r < 0) return r;
  if ((r = sd_bus_message_open_container(m, 'a', "s")) < 0) return r;
  for (const auto& v : list)
    if ((r = sd_bus_message_append(m, "s", v.get_ref<const std::string&>().c_str())) < 0) return r;
  if ((r = sd_bus_message_close_container(m)) < 0) return r;
  return sd_bus_message_close_container(m);
}

}  // namespace

int append_dict(sd_bus_message* m, const nlohmann::json& object) {
  int r = sd_bus_message_open_container(m, 'a', "{sv}");
  if (r < 0) return r;
  for (const auto& [key, value] : object.items()) {
    if (value.is_null()) continue;
    r = sd_bus_message_open_container(m, 'e', "sv");
    if (r < 0) return r;
    r = sd_bus_message_append(m, "s", key.c_str());
    if (r < 0) return r;
    if (value.is_string()) {
      r = sd_bus_message_append(m, "v", "s", value.get_ref<const std::string&>().c_str());
    } else if (value.is_boolean()) {
      r = sd_bus_message_append(m, "v", "b", value.get<bool>() ? 1 : 0);
    } else if (value.is_number_unsigned()) {
      // JSON readers give non-negative integers as unsigned; keep "x" so the
      // wire type of a field does not depend on its value.
      r = sd_bus_message_append(m, "v", "x", static_cast<int64_t>(value.get<uint64_t>()));
    } else if (value.is_number_integer()) {
      r = sd_bus_message_append(m, "v", "x", value.get<int64_t>());
    } else if (value.is_number_float()) {
      r = sd_bus_message_append(m, "v", "d", value.get<double>());
    } else if (value.is_array()) {
      r = append_strings(m, value);
    } else {
      return -EINVAL;
    }
    if (r < 0) return r;
    r = sd_bus_message_close_container(m);
    if (r < 0) return r;
  }
  return sd_bus_message_close_container(m);
}

Result<nlohmann::json> read_dict(sd_bus_message* m) {
  auto fail = [](int r, const std::string& what) {
    return make_error(Errc::invalid_argument, what + ": " + std::string(strerror(-r)));
  };
  nlohmann::json out = nlohmann::json::object();
  int r = sd_bus_message_enter_container(m, 'a', "{sv}");
  if (r < 0) return fail(r, "expected a{sv}");
  for (;;) {
    r = sd_bus_message_enter_container(m, 'e', "sv");
    if (r < 0) return fail(r, "bad dictionary entry");
    if (r == 0) break;
    const char* key = nullptr;
    if ((r = sd_bus_message_read(m, "s", &key)) < 0) return fail(r, "bad dictionary key");
    char type = 0;
    const char* contents = nullptr;
    if ((r = sd_bus_message_peek_type(m, &type, &contents)) < 0 || !contents)
      return fail(r < 0 ? r : -EINVAL, std::string("bad value for '") + key + "'");
    std::string sig = contents;
    if ((r = sd_bus_message_enter_container(m, 'v', contents)) < 0) return fail(r, key);
    if (sig == "s") {
      const char* s = nullptr;
      r = sd_bus_message_read(m, "s", &s);
      out[key] = s ? s : "";
    } else if (sig == "x") {
      int64_t v = 0;
      r = sd_bus_message_read(m, "x", &v);
      out[key] = v;
    } else if (sig == "t") {
      uint64_t v = 0;
      r = sd_bus_message_read(m, "t", &v);
      out[key] = static_cast<int64_t>(v);
    } else if (sig == "i") {
      int32_t v = 0;
      r = sd_bus_message_read(m, "i", &v);
      out[key] = v;
    } else if (sig == "u") {
      uint32_t v = 0;
      r = sd_bus_message_read(m, "u", &v);
      out[key] = static_cast<int64_t>(v);
    } else if (sig == "b") {
      int v = 0;
      r = sd_bus_message_read(m, "b", &v);
      out[key] = v != 0;
    } else if (sig == "d") {
      double v = 0;
      r = sd_bus_message_read(m, "d", &v);
      out[key] = v;
    } else if (sig == "as") {
      char** strv = nullptr;
      r = sd_bus_message_read_strv(m, &strv);
      nlohmann::json list = nlohmann::json::array();
      for (char** p = strv; p && *p; ++p) {
        list.push_back(std::string(*p));
        std::free(*p);
      }
      std::free(strv);
      out[key] = std::move(list);
    } else {
      return make_error(Errc::invalid_argument,
                        std::string("value of '") + key + "' has unsupported type '" + sig + "'");
    }
    if (r < 0) return fail(r, key);
    if ((r = sd_bus_message_exit_container(m)) < 0) return fail(r, key);
    if ((r = sd_bus_message_exit_container(m)) < 0) return fail(r, key);
  }
  if ((r = sd_bus_message_exit_container(m)) < 0) return fail(r, "dictionary");
  return out;
}

}  // namespace bb::bus
