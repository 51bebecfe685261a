#include "config/yaml_guard.hpp"

#include <yaml-cpp/eventhandler.h>

#include <sstream>
#include <string>
#include <unordered_map>

#include "hub/field_error.hpp"
#include "support/utf8.hpp"

namespace gantry::config {

using hub::FieldError;

namespace {

constexpr const char* kWholeInput = "yaml";

std::string line_of(const YAML::Mark& mark) {
  return "line " + std::to_string(mark.line + 1);
}

std::string position_of(const YAML::Mark& mark) {
  return line_of(mark) + ", column " + std::to_string(mark.column + 1);
}

// Line and column of byte `offset`, for errors found before yaml-cpp runs.
std::string position_of(std::string_view text, std::size_t offset) {
  std::size_t line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') ++line, line_start = i + 1;
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(offset - line_start + 1);
}

void check_text(std::string_view text, const YamlLimits& limits) {
  if (text.size() > limits.max_bytes)
    throw FieldError(kWholeInput, "",
                     "the input is " + std::to_string(text.size()) + " bytes, over the limit of " +
                         std::to_string(limits.max_bytes) + " bytes");
  const std::size_t valid = support::utf8_valid_prefix(text);
  if (valid != text.size())
    throw FieldError(kWholeInput, "", "invalid UTF-8 at " + position_of(text, valid));
  // A NUL is valid UTF-8 but never YAML text; refusing it also keeps UTF-16
  // and UTF-32 input (which yaml-cpp would detect and convert) out.
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos)
    throw FieldError(kWholeInput, "", "a NUL byte at " + position_of(text, nul));
}

// One pass over the events of every document; throws at the first limit
// crossed, so that an oversized input costs no more than the limit itself.
class LimitChecker : public YAML::EventHandler {
 public:
  explicit LimitChecker(const YamlLimits& limits) : limits_(limits) {}

  // Documents with content, by their index among all documents.
  const std::vector<std::size_t>& content_documents() const { return content_documents_; }
  std::size_t documents() const { return documents_; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    ++documents_;
    document_mark_ = mark;
    document_is_empty_ = false;
    anchors_.clear();  // yaml-cpp numbers anchors per document
  }

  void OnDocumentEnd() override {
    if (document_is_empty_) return;
    content_documents_.push_back(documents_ - 1);
    if (content_documents_.size() > limits_.max_documents)
      throw FieldError(
          kWholeInput, "",
          "the input holds more than " + std::to_string(limits_.max_documents) +
              (limits_.max_documents == 1 ? " document" : " documents") + " (another starts at " +
              line_of(document_mark_) +
              "); send each document on its own (gantryctl submit -f and apply -f do)");
  }

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (stack_.empty() && anchor == YAML::NullAnchor) document_is_empty_ = true;
    if (anchor != YAML::NullAnchor) anchors_[anchor] = Anchor{1, true, ""};
    add_node(mark, 1, nullptr);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (++aliases_ > limits_.max_aliases)
      throw FieldError(field_here(), "",
                       "more than " + std::to_string(limits_.max_aliases) + " aliases at " +
                           position_of(mark) + " (the limit)");
    const auto named = anchors_.find(anchor);
    if (named == anchors_.end())
      throw FieldError(field_here(), "", "alias to an unknown anchor at " + position_of(mark));
    // Its anchor is still open: the alias is inside the node it names, a
    // cycle that every reader would follow forever.
    if (!named->second.complete)
      throw FieldError(field_here(), "",
                       "alias at " + position_of(mark) + " refers to a node that contains it");
    const Anchor target = named->second;
    if (target.is_collection && at_key_position()) refuse_complex_key(mark);
    add_node(mark, target.expanded, target.is_scalar_key ? &target.scalar : nullptr);
  }

  void OnScalar(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                const std::string& value) override {
    const std::size_t size = value.size() + 1;
    if (anchor != YAML::NullAnchor) anchors_[anchor] = Anchor{size, true, value, true};
    add_node(mark, size, &value);
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value /*style*/) override {
    open(mark, anchor, false);
  }
  void OnSequenceEnd() override { close(); }

  void OnMapStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value /*style*/) override {
    open(mark, anchor, true);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Anchor {
    std::size_t expanded = 0;
    bool complete = false;
    std::string scalar;  // a scalar anchor's text, for an alias used as a key
    bool is_scalar_key = false;
    bool is_collection = false;
  };

  // A mapping or sequence being read.
  struct Collection {
    bool is_map = false;
    YAML::anchor_t anchor = YAML::NullAnchor;
    std::size_t expanded_at_start = 0;
    std::size_t children = 0;  // complete child nodes; in a map, keys and values alternate
    std::string field;
    std::string key;  // a map's last key, naming the value that follows it
    std::unordered_map<std::string, int> key_lines;  // each key's line, for duplicates
  };

  // The field path of the node that starts now, as FieldError names fields.
  std::string child_field() const {
    if (stack_.empty()) return "";
    const Collection& parent = stack_.back();
    if (!parent.is_map) return parent.field + "[" + std::to_string(parent.children) + "]";
    if (parent.children % 2 == 0) return parent.field;  // a key: name the mapping
    return parent.field.empty() ? parent.key : parent.field + "." + parent.key;
  }

  std::string field_here() const {
    const std::string field = child_field();
    return field.empty() ? kWholeInput : field;
  }

  void grow(const YAML::Mark& mark, std::size_t size) {
    expanded_ += size;
    if (expanded_ > limits_.max_expanded_bytes)
      throw FieldError(field_here(), "",
                       "the input expands (aliases counted as copies) to more than " +
                           std::to_string(limits_.max_expanded_bytes) + " bytes at " +
                           position_of(mark) + " (the limit)");
  }

  // A complete child node of the current collection: its expanded size, and
  // its text when it can be a mapping key.
  void add_node(const YAML::Mark& mark, std::size_t size, const std::string* key_text) {
    grow(mark, size);
    if (stack_.empty()) return;
    Collection& parent = stack_.back();
    if (parent.is_map && parent.children % 2 == 0) take_key(parent, mark, key_text);
    ++parent.children;
  }

  bool at_key_position() const {
    return !stack_.empty() && stack_.back().is_map && stack_.back().children % 2 == 0;
  }

  // Kubernetes' YAML decoder turns objects into JSON, whose keys are strings:
  // it refuses a mapping or sequence as a key, and so does Gantry (every
  // reader takes keys as strings).
  [[noreturn]] void refuse_complex_key(const YAML::Mark& mark) const {
    throw FieldError(field_here(), "",
                     "a mapping key must be a single value, not a mapping or list (at " +
                         position_of(mark) + ")");
  }

  void take_key(Collection& map, const YAML::Mark& mark, const std::string* key_text) {
    if (key_text == nullptr) {  // a null key
      map.key = "?";
      return;
    }
    map.key = *key_text;
    const auto [first, inserted] = map.key_lines.emplace(*key_text, mark.line + 1);
    if (!inserted)
      throw FieldError(map.field.empty() ? map.key : map.field + "." + map.key, "",
                       "duplicate mapping key at " + line_of(mark) + " (first at line " +
                           std::to_string(first->second) + ")");
  }

  void open(const YAML::Mark& mark, YAML::anchor_t anchor, bool is_map) {
    if (at_key_position()) refuse_complex_key(mark);
    if (stack_.size() >= limits_.max_depth)
      throw FieldError(field_here(), "",
                       "nested deeper than " + std::to_string(limits_.max_depth) + " levels at " +
                           position_of(mark) + " (the limit)");
    if (anchor != YAML::NullAnchor) anchors_[anchor] = Anchor{};  // open: aliases to it are cycles
    Collection collection;
    collection.is_map = is_map;
    collection.anchor = anchor;
    collection.field = child_field();
    collection.expanded_at_start = expanded_;
    grow(mark, 1);
    stack_.push_back(std::move(collection));
  }

  void close() {
    const Collection done = std::move(stack_.back());
    stack_.pop_back();
    if (done.anchor != YAML::NullAnchor)
      anchors_[done.anchor] = Anchor{expanded_ - done.expanded_at_start, true, "", false, true};
    if (!stack_.empty()) ++stack_.back().children;
  }

  const YamlLimits& limits_;
  std::vector<Collection> stack_;
  std::unordered_map<YAML::anchor_t, Anchor> anchors_;
  std::size_t aliases_ = 0;
  std::size_t expanded_ = 0;
  std::size_t documents_ = 0;
  std::vector<std::size_t> content_documents_;
  YAML::Mark document_mark_;
  bool document_is_empty_ = false;
};

// Lines that start a document ("---") or end one ("...").
std::size_t document_markers(std::string_view text) {
  std::size_t markers = 0;
  for (std::size_t line = 0; line < text.size();) {
    const std::string_view rest = text.substr(line);
    if (rest.rfind("---", 0) == 0 || rest.rfind("...", 0) == 0) ++markers;
    const std::size_t end = text.find('\n', line);
    if (end == std::string_view::npos) break;
    line = end + 1;
  }
  return markers;
}

FieldError syntax_error(const YAML::ParserException& error) {
  // Where, as a place ("... at line 2, column 1"), as the other guards say it, not as a value.
  return FieldError(kWholeInput, "", "not valid YAML: " + error.msg + " at " + position_of(error.mark));
}

}  // namespace

std::vector<YAML::Node> load_yaml_documents(std::string_view text, const YamlLimits& limits) {
  check_text(text, limits);
  const std::string owned(text);
  LimitChecker checker(limits);
  try {
    std::istringstream stream(owned);
    YAML::Parser parser(stream);
    // yaml-cpp 0.7 can report a document again and again without reading on
    // (a stray "," is enough: found by fuzz_priority_class). A text holds at
    // most one document more than it has "---" / "..." markers.
    const std::size_t most_documents = document_markers(text) + 1;
    for (std::size_t documents = 0; parser.HandleNextDocument(checker);) {
      if (++documents > most_documents)
        throw FieldError(kWholeInput, "",
                         "not valid YAML: the parser reads no further (more documents than its " +
                             std::to_string(most_documents - 1) + " document markers allow)");
    }
  } catch (const YAML::ParserException& error) {
    throw syntax_error(error);
  }
  // The input is within every limit: building its nodes is bounded now.
  std::vector<YAML::Node> out;
  try {
    if (checker.content_documents().empty()) return out;
    if (checker.documents() == 1) {
      out.push_back(YAML::Load(owned));
      return out;
    }
    const std::vector<YAML::Node> all = YAML::LoadAll(owned);
    for (const std::size_t index : checker.content_documents())
      if (index < all.size()) out.push_back(all[index]);
  } catch (const YAML::ParserException& error) {
    throw syntax_error(error);
  }
  return out;
}

YAML::Node load_yaml(std::string_view text, YamlLimits limits) {
  limits.max_documents = 1;
  std::vector<YAML::Node> documents = load_yaml_documents(text, limits);
  return documents.empty() ? YAML::Node() : documents.front();
}

}  // namespace gantry::config
