// -f FILE|DIR|- (repeatable), as kubectl's -f reads: a directory stands for
// its .yaml, .yml and .json files in name order (with -R, those of its
// subdirectories too), "-" for stdin; every file's documents in turn.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "console/commands.hpp"
#include "console/yaml_documents.hpp"

namespace gantry::console {

namespace {

namespace fs = std::filesystem;

std::string read_one(CommandContext& context, const std::string& path) {
  std::ostringstream text;
  if (path == "-") {
    text << context.in.rdbuf();
    return text.str();
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) throw UsageError("-f: cannot open \"" + path + "\": " + std::strerror(errno));
  text << file.rdbuf();
  if (file.bad()) throw UsageError("-f: cannot read \"" + path + "\"");
  return text.str();
}

bool is_manifest(const fs::path& path) {
  const std::string extension = path.extension().string();
  return extension == ".yaml" || extension == ".yml" || extension == ".json";
}

// A directory's manifests, sorted by path so that every run submits them in
// the same order.
std::vector<std::string> manifests_in(const std::string& directory, bool recursive) {
  std::vector<std::string> found;
  std::error_code error;
  const auto add = [&found](const fs::directory_entry& entry) {
    if (entry.is_regular_file() && is_manifest(entry.path()))
      found.push_back(entry.path().string());
  };
  if (recursive) {
    for (fs::recursive_directory_iterator it(directory, error), end; !error && it != end;
         it.increment(error))
      add(*it);
  } else {
    for (fs::directory_iterator it(directory, error), end; !error && it != end; it.increment(error))
      add(*it);
  }
  if (error) throw UsageError("-f: cannot read \"" + directory + "\": " + error.message());
  if (found.empty())
    throw UsageError("-f: \"" + directory + "\" holds no .yaml, .yml or .json file" +
                     (recursive ? "" : " (-R reads its subdirectories too)"));
  std::sort(found.begin(), found.end());
  return found;
}

// The files -f names, directories expanded.
std::vector<std::string> input_paths(const Invocation& invocation) {
  std::vector<std::string> paths;
  for (const std::string& path : invocation.files) {
    std::error_code error;
    if (path != "-" && fs::is_directory(path, error)) {
      for (std::string& file : manifests_in(path, invocation.recursive))
        paths.push_back(std::move(file));
    } else {
      paths.push_back(path);
    }
  }
  return paths;
}

}  // namespace

std::vector<InputDocument> read_input_documents(CommandContext& context) {
  const std::vector<std::string> paths = input_paths(context.invocation);
  std::vector<InputDocument> documents;
  for (const std::string& path : paths) {
    std::vector<std::string> texts = split_yaml_documents(read_one(context, path));
    for (std::size_t i = 0; i < texts.size(); ++i) {
      std::vector<std::string> where;
      if (paths.size() > 1) where.push_back(path == "-" ? "stdin" : path);
      if (texts.size() > 1)
        where.push_back("document " + std::to_string(i + 1) + " of " +
                        std::to_string(texts.size()));
      documents.push_back({std::move(texts[i]), std::move(where)});
    }
  }
  return documents;
}

std::string InputDocument::label(const std::string& job) const {
  std::vector<std::string> parts = where;
  if (!job.empty()) parts.push_back(job);
  if (parts.empty()) return "";
  std::string text = " (";
  for (std::size_t i = 0; i < parts.size(); ++i) text += (i == 0 ? "" : ", ") + parts[i];
  return text + ")";
}

}  // namespace gantry::console
