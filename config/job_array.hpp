// Job arrays in Slurm's sense (sbatch --array): one Volcano Job document with
// the annotation gantry.io/array: "0-999" stands for a job per index, named
// NAME-INDEX, each an ordinary job from there on (queued, scheduled,
// cancelled and listed on its own). docs/job-arrays.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config/volcano_job.hpp"
#include "protocol/messages.hpp"

namespace gantry::config {

// On the array's document: which indices (Slurm's syntax: "0-15", "1,3,5-7",
// "0-99:10"; no "%N" limit).
inline constexpr const char* kArrayAnnotation = "gantry.io/array";
// On each element: its index, and the array's name as a label, so that
// `gantryctl get jobs -l gantry.io/array-job=NAME` lists the array.
inline constexpr const char* kArrayIndexAnnotation = "gantry.io/array-index";
inline constexpr const char* kArrayJobLabel = "gantry.io/array-job";

// Elements of one array, and the largest index. Slurm's MaxArraySize is 1,001
// by default (indices 0-1000) and commonly raised to tens of thousands; an
// array is one request's worth of jobs (protocol::kMaxSubmitJobs).
inline constexpr std::size_t kMaxArrayTasks = protocol::kMaxSubmitJobs;
inline constexpr std::int64_t kMaxArrayIndex = 999'999;

// The indices `text` names, ascending, each once. Throws hub::FieldError
// naming `field` for a malformed range, a "%N" limit, an index above
// kMaxArrayIndex or more than kMaxArrayTasks indices.
std::vector<std::int32_t> parse_array_indices(std::string_view text, const std::string& field);

// One job a submitted document stands for: its spec and the YAML it is kept
// as (an element's YAML is the document's, patched for its index).
struct SubmittedDocumentJob {
  protocol::JobSpec spec;
  std::string yaml;
};

// The jobs a Volcano Job document stands for: itself, or one per index of its
// array, each with metadata.name NAME-INDEX, the label gantry.io/array-job:
// NAME, the annotation gantry.io/array-index: INDEX (gantry.io/array
// removed) and in every container (and init container) the environment
// GANTRY_ARRAY_JOB_NAME, GANTRY_ARRAY_TASK_ID, GANTRY_ARRAY_TASK_COUNT,
// GANTRY_ARRAY_TASK_MIN and GANTRY_ARRAY_TASK_MAX (Slurm's SLURM_ARRAY_*).
// The document is loaded once; `max_jobs` bounds an array (the room left in
// the request). Throws hub::FieldError as parse_volcano_job does.
std::vector<SubmittedDocumentJob> read_job_document(std::string_view yaml,
                                                    const PriorityClasses& classes,
                                                    std::size_t max_jobs = kMaxArrayTasks);

}  // namespace gantry::config
