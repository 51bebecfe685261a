#include "console/yaml_documents.hpp"

namespace gantry::console {

namespace {

// `line` (its newline included) is the marker "---" or "...", alone or
// followed by a space.
bool marker_line(std::string_view line, std::string_view marker) {
  if (line.substr(0, 3) != marker) return false;
  return line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r' ||
         line[3] == '\n';
}

// What a line holds that matters for splitting.
enum class LineKind { kNothing, kDirective, kContent };

constexpr std::string_view kBlank = " \t\r\n";

LineKind kind_of(std::string_view line) {
  const bool opens_document = marker_line(line, "---");
  if (opens_document || marker_line(line, "...")) {
    // Content may follow a "---" on its own line ("--- {a: 1}").
    const std::string_view rest = line.substr(3);
    const std::size_t first = rest.find_first_not_of(kBlank);
    const bool content_after = first != std::string_view::npos && rest[first] != '#';
    return opens_document && content_after ? LineKind::kContent : LineKind::kNothing;
  }
  const std::size_t first = line.find_first_not_of(kBlank);
  if (first == std::string_view::npos || line[first] == '#') return LineKind::kNothing;
  if (first == 0 && line[0] == '%') return LineKind::kDirective;
  return LineKind::kContent;
}

struct Piece {
  std::string text;
  bool has_content = false;
  bool has_directive = false;
};

}  // namespace

std::vector<std::string> split_yaml_documents(std::string_view text) {
  std::vector<Piece> pieces(1);
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t newline = text.find('\n', start);
    const std::size_t end = newline == std::string_view::npos ? text.size() : newline + 1;
    const std::string_view line = text.substr(start, end - start);
    if (marker_line(line, "---")) {
      // A piece of directives only belongs to the document this marker opens.
      if (pieces.back().has_content || !pieces.back().has_directive) pieces.emplace_back();
    }
    Piece& piece = pieces.back();
    piece.text.append(line);
    const LineKind kind = kind_of(line);
    piece.has_content = piece.has_content || kind == LineKind::kContent;
    piece.has_directive = piece.has_directive || kind == LineKind::kDirective;
    if (marker_line(line, "...")) pieces.emplace_back();  // the document ends here
    start = end;
  }
  std::vector<std::string> documents;
  for (Piece& piece : pieces)
    if (piece.has_content) documents.push_back(std::move(piece.text));
  if (documents.size() <= 1) return {std::string(text)};
  return documents;
}

}  // namespace gantry::console
