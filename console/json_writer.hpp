// A small streaming JSON writer for gantryctl's -o json output. Kept here
// instead of adding a JSON dependency: gantryctl only ever writes JSON.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gantry::console {

class JsonWriter {
 public:
  // indent = 0 writes everything on one line.
  explicit JsonWriter(int indent = 2) : indent_(indent) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);

  JsonWriter& string(std::string_view text);
  JsonWriter& number(std::int64_t value);
  JsonWriter& number(double value);  // NaN and infinities have no JSON form: written as null
  // An exact decimal such as "1.5" or "-0.001", written as is (validated).
  JsonWriter& decimal(std::string_view digits);
  JsonWriter& boolean(bool value);
  JsonWriter& null();

  // The document; throws std::logic_error while an object or array is open.
  const std::string& str() const;

 private:
  struct Scope {
    bool is_object = false;
    bool empty = true;
    bool has_key = false;  // object scopes: a key was written, its value is due
  };
  void before_value();
  void close(bool is_object);
  void newline_and_indent();

  int indent_;
  std::string out_;
  std::vector<Scope> scopes_;
  bool done_ = false;  // a complete top-level value was written
};

// `text` as a quoted JSON string. Control characters are escaped; valid UTF-8
// passes through; bytes that are not valid UTF-8 become U+FFFD so the output
// stays valid JSON whatever a peer sent.
std::string json_quote(std::string_view text);

}  // namespace gantry::console
