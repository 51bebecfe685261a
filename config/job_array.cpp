#include "config/job_array.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <utility>

#include "config/yaml_emit.hpp"
#include "config/yaml_fields.hpp"
#include "hub/field_error.hpp"

namespace gantry::config {

using hub::FieldError;

namespace {

std::int64_t read_index(std::string_view text, std::string_view whole, const std::string& field) {
  std::int64_t value = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < 0)
    throw FieldError(field, std::string(whole),
                     "must list indices and ranges such as \"0-999\", \"1,3,5-7\" or \"0-99:10\"");
  if (value > kMaxArrayIndex)
    throw FieldError(
        field, std::string(whole),
        "index " + std::string(text) + " exceeds the limit " + std::to_string(kMaxArrayIndex));
  return value;
}

// One comma-separated part: "A", "A-B" or "A-B:STEP", appended to `out`.
void append_range(std::string_view part, std::string_view whole, const std::string& field,
                  std::vector<std::int32_t>& out) {
  std::int64_t step = 1;
  if (const std::size_t colon = part.find(':'); colon != std::string_view::npos) {
    step = read_index(part.substr(colon + 1), whole, field);
    if (step == 0) throw FieldError(field, std::string(whole), "a step must be at least 1");
    part = part.substr(0, colon);
  }
  const std::size_t dash = part.find('-');
  const std::int64_t first = read_index(part.substr(0, dash), whole, field);
  const std::int64_t last =
      dash == std::string_view::npos ? first : read_index(part.substr(dash + 1), whole, field);
  if (last < first)
    throw FieldError(field, std::string(whole),
                     "range " + std::string(part) + " ends before it starts");
  const std::int64_t count = (last - first) / step + 1;
  if (out.size() + static_cast<std::size_t>(count) > kMaxArrayTasks)
    throw FieldError(field, std::string(whole),
                     "names more than " + std::to_string(kMaxArrayTasks) + " jobs, the limit");
  for (std::int64_t index = first; index <= last; index += step)
    out.push_back(static_cast<std::int32_t>(index));
}

// An env list without the entries named in `vars`, then `vars`: an element's
// GANTRY_ARRAY_* replace the document's own.
void set_environment(YAML::Node container,
                     const std::vector<std::pair<std::string, std::string>>& vars) {
  if (!container.IsMap()) return;  // parse_volcano_job has refused such a document
  YAML::Node env(YAML::NodeType::Sequence);
  if (const YAML::Node old = container["env"]; old && old.IsSequence()) {
    for (const YAML::Node& entry : old) {
      const YAML::Node name = entry.IsMap() ? entry["name"] : YAML::Node();
      const bool replaced =
          name && name.IsScalar() && std::any_of(vars.begin(), vars.end(), [&](const auto& var) {
            return var.first == name.Scalar();
          });
      if (!replaced) env.push_back(entry);
    }
  }
  for (const auto& [name, value] : vars) {
    YAML::Node entry(YAML::NodeType::Map);
    entry["name"] = string_scalar(name);
    entry["value"] = string_scalar(value);
    env.push_back(entry);
  }
  container["env"] = env;
}

void set_task_environment(YAML::Node root,
                          const std::vector<std::pair<std::string, std::string>>& vars) {
  YAML::Node tasks = root["spec"]["tasks"];
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    YAML::Node pod = tasks[t]["template"]["spec"];
    for (const char* list : {"initContainers", "containers"}) {
      YAML::Node containers = pod[list];
      if (!containers.IsSequence()) continue;
      for (std::size_t c = 0; c < containers.size(); ++c) set_environment(containers[c], vars);
    }
  }
}

// The document as the element of `index` reads.
YAML::Node element_document(const YAML::Node& document, const std::string& array_name,
                            std::int32_t index, const std::vector<std::int32_t>& indices) {
  YAML::Node element = YAML::Clone(document);
  YAML::Node metadata = element["metadata"];
  metadata["name"] = string_scalar(array_name + "-" + std::to_string(index));
  metadata["labels"][kArrayJobLabel] = string_scalar(array_name);
  metadata["annotations"].remove(kArrayAnnotation);
  metadata["annotations"][kArrayIndexAnnotation] = string_scalar(std::to_string(index));
  set_task_environment(element, {{"GANTRY_ARRAY_JOB_NAME", array_name},
                                 {"GANTRY_ARRAY_TASK_ID", std::to_string(index)},
                                 {"GANTRY_ARRAY_TASK_COUNT", std::to_string(indices.size())},
                                 {"GANTRY_ARRAY_TASK_MIN", std::to_string(indices.front())},
                                 {"GANTRY_ARRAY_TASK_MAX", std::to_string(indices.back())}});
  return element;
}

}  // namespace

std::vector<std::int32_t> parse_array_indices(std::string_view text, const std::string& field) {
  if (text.find('%') != std::string_view::npos)
    throw FieldError(field, std::string(text),
                     "a limit on how many elements run at once (%N) is not supported; a queue's "
                     "capability bounds what its jobs hold");
  std::vector<std::int32_t> indices;
  std::string_view rest = text;
  while (true) {
    const std::size_t comma = rest.find(',');
    append_range(rest.substr(0, comma), text, field, indices);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  return indices;
}

std::vector<SubmittedDocumentJob> read_job_document(std::string_view yaml,
                                                    const PriorityClasses& classes,
                                                    std::size_t max_jobs) {
  const YAML::Node document = load_document(yaml);
  protocol::JobSpec spec = parse_volcano_job(document, classes);
  std::vector<SubmittedDocumentJob> jobs;
  const auto array = spec.annotations.find(kArrayAnnotation);
  if (array == spec.annotations.end()) {
    jobs.push_back({std::move(spec), std::string(yaml)});
    return jobs;
  }
  const std::string field = std::string("metadata.annotations.") + kArrayAnnotation;
  if (spec.name.empty())
    throw FieldError("metadata.name", "",
                     "a job array needs a name: its elements are NAME-INDEX (generateName is not "
                     "supported)");
  const std::vector<std::int32_t> indices = parse_array_indices(array->second, field);
  if (indices.size() > max_jobs)
    throw FieldError(field, array->second,
                     std::to_string(indices.size()) + " jobs exceed the " +
                         std::to_string(max_jobs) + " left in this request (limit " +
                         std::to_string(protocol::kMaxSubmitJobs) + " per request)");
  jobs.reserve(indices.size());
  for (const std::int32_t index : indices) {
    const YAML::Node element = element_document(document, spec.name, index, indices);
    jobs.push_back({parse_volcano_job(element, classes), emit_yaml(element)});
  }
  return jobs;
}

}  // namespace gantry::config
