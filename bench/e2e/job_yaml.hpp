// The jobs the load generator submits: small single-replica Volcano Jobs that
// ask for one GPU, named so that a fake cluster can tell from a Commit which
// submission it answers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gantry::bench::e2e {

std::string job_name(std::uint32_t index);
// The index job_name() encoded, or nullopt for a name it did not make.
std::optional<std::uint32_t> job_index(std::string_view name);
std::string job_yaml(std::uint32_t index);
// A one-replica CPU job that runs /bin/true, for the comparison with Slurm's
// `sbatch --wrap=/bin/true` (bench/slurm-vs-gantry.sh).
std::string true_job_yaml(const std::string& name);

}  // namespace gantry::bench::e2e
