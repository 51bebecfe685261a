// Every Volcano Job and Queue of tests/config/volcano_compat, mutated at
// random (bytes flipped, inserted, removed, truncated): the parsers either
// accept the result or refuse it with hub::FieldError, the error that names a
// field. Any other exception (or a crash) would escape the hub's per-request
// error handling, so that is what this looks for.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "config/volcano_job.hpp"
#include "config/volcano_queue.hpp"
#include "hub/field_error.hpp"

namespace gantry::config {
namespace {

std::vector<std::string> corpus(const std::string& kind) {
  std::vector<std::string> out;
  const auto dir =
      std::filesystem::path(GANTRY_SOURCE_DIR) / "tests" / "config" / "volcano_compat" / kind;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream file(entry.path(), std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    out.push_back(text.str());
  }
  return out;
}

std::string mutate(std::string text, std::mt19937& random) {
  // Bytes YAML gives meaning to, so that mutations reach the parsers' paths.
  static const std::string kSpecial = "-:[]{},&*!|>'\"#%@`\n \t?~0123456789abc\xff\xc3";
  const int edits = 1 + static_cast<int>(random() % 4);
  for (int i = 0; i < edits && !text.empty(); ++i) {
    const std::size_t at = random() % text.size();
    const char byte = kSpecial[random() % kSpecial.size()];
    switch (random() % 4) {
      case 0:
        text[at] = byte;
        break;
      case 1:
        text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), byte);
        break;
      case 2:
        text.erase(at, 1 + random() % 8);
        break;
      default:
        text.resize(at);
        break;
    }
  }
  return text;
}

template <class Parse>
void expect_field_errors_only(const std::string& kind, Parse parse) {
  std::mt19937 random(27);
  for (const std::string& original : corpus(kind)) {
    for (int round = 0; round < 100; ++round) {
      const std::string text = mutate(original, random);
      try {
        parse(text);
      } catch (const hub::FieldError&) {
      } catch (const std::exception& other) {
        ADD_FAILURE() << "not a FieldError: " << other.what() << "\n--- input:\n" << text;
        return;
      }
    }
  }
}

TEST(ParserRobustness, MutatedJobsAreAcceptedOrRefusedWithAFieldError) {
  expect_field_errors_only("jobs", [](const std::string& text) { parse_volcano_job(text); });
}

TEST(ParserRobustness, MutatedQueuesAreAcceptedOrRefusedWithAFieldError) {
  expect_field_errors_only("queues", [](const std::string& text) { parse_volcano_queue(text); });
}

}  // namespace
}  // namespace gantry::config
