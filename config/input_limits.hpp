// The limits every input Gantry reads from outside is held to: YAML manifests
// and files, JSON from the Karmada webhook and Kubernetes API servers, msgpack
// frames. One header, so that the numbers are reviewed together and a reader
// can tell what Gantry accepts. Header only (no code), so that every library,
// the lowest (protocol) included, can use it without linking anything.
//
// Each limit sits well above anything a legitimate input needs and well below
// what makes the hub run out of memory or stack; a violation is refused with an
// error naming the field and the limit, and the reader goes on serving.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gantry::config {

// --- YAML (Volcano Job / Queue / PriorityClass, inventories, kubeconfig) ----

// The raw text of one YAML input. The largest real manifests (a job with a
// long inline script in its args, a kubeconfig with embedded certificates) are
// a few hundred KiB; 4 MiB leaves an order of magnitude and keeps one parse
// (yaml-cpp nodes, then JSON) within a few hundred MB at worst.
inline constexpr std::size_t kMaxYamlBytes = 4u << 20;

// Documents in one input where the reader takes a single object. A file of
// several objects is split by the client (gantryctl submit/apply -f send each
// document on its own, as kubectl does), never silently cut to its first.
inline constexpr std::size_t kMaxYamlDocuments = 1;

// Nesting of mappings and sequences. A Volcano Job's deepest legitimate path
// (spec.tasks[].template.spec.affinity.nodeAffinity...matchExpressions[].values[])
// is about 15 levels; 64 leaves room for CRD-style payloads while keeping every
// recursive walk (yaml-cpp's own parser allows 2000, yaml_to_json, JSON dump)
// far from the stack's end. It stays below kMaxJsonDepth so that a manifest
// that passes here still passes once it is wrapped in a ResourceBinding.
inline constexpr std::size_t kMaxYamlDepth = 64;

// Alias nodes (*name) in one input. People write a handful (a shared env list,
// a shared resources block); 1,000 is far above that and bounds the
// bookkeeping an input can cause before its expanded size is even reached.
inline constexpr std::size_t kMaxYamlAliases = 1000;

// The size of the input once every alias is expanded: scalar bytes plus one
// per node, counting an alias as a full copy of what it names. Aliases cost
// nothing in yaml-cpp's tree, but every reader (yaml_to_json, string lists)
// copies them: the 130 KB manifest reusing one 100 KB string 10,000
// times expanded to 1 GB and took the hub from 15 MB to 971 MB. Twice the raw
// limit lets a maximal document use aliases and still pass.
inline constexpr std::size_t kMaxYamlExpandedBytes = 2 * kMaxYamlBytes;

// --- JSON (AdmissionReview, ResourceBinding, Kubernetes API responses) -------

// Nesting of arrays and objects. nlohmann parses iteratively, but dump(), the
// JSON -> YAML -> JSON round trips and our own walkers recurse: the issue's
// 200 KB body of 100,000 nested arrays crashed the hub with SIGSEGV in dump().
// Kubernetes objects nest about 20 deep; a Volcano Job (kMaxYamlDepth) inside a
// ResourceBinding's spec inside an AdmissionReview adds about 10 more.
inline constexpr std::size_t kMaxJsonDepth = 128;

// How much of a value an error message quotes: enough to recognise it, never
// the whole (possibly huge or deep) body.
inline constexpr std::size_t kMaxErrorExcerptBytes = 200;

// --- msgpack (frames and payloads between hub, agents and gantryctl) --------

// Nesting of arrays and maps inside one payload. Gantry's deepest message
// (ListReply -> JobInfo -> parts -> nodes -> PlacedReplica) is under 10 levels.
inline constexpr std::size_t kMaxMsgpackDepth = 32;

// Elements of one array or map. The longest legitimate lists are per replica
// (a dispatch's PlacedReplica list, at most kMaxReplicasPerJob) and per job in
// a ListReply. msgpack-cxx allocates the elements as soon as it reads a count,
// so the count is also capped by the bytes left (see protocol/envelope.cpp).
inline constexpr std::size_t kMaxMsgpackItems = 1'000'000;

// One str, bin or ext value (the envelope's payload is one bin). The largest
// are a ListReply of every job the hub keeps (tens of MB) and a task's pod
// template; frames as a whole are bounded by the hub's --max-frame-bytes
// before they reach the decoder, and no value is ever larger than its frame.
inline constexpr std::size_t kMaxMsgpackBytes = 256u << 20;

// --- Jobs (Volcano Job fields, checked in config/job_bounds.cpp) ------------

// Tasks in one job. Volcano jobs have a handful of roles (master, worker, ps,
// evaluator); 256 is generous and bounds per-task loops in the scheduler.
inline constexpr std::size_t kMaxTasksPerJob = 256;

// Replicas of one task, and of a whole job. The largest Kubernetes clusters
// run about 150,000 pods in all; a gang of 100,000 replicas already needs more
// than any member cluster has. Keeps replica counts (int32) and per-replica
// lists far from overflow.
inline constexpr std::int32_t kMaxReplicasPerTask = 100'000;
inline constexpr std::int32_t kMaxReplicasPerJob = 100'000;

// One resource quantity, in milli-units: 10^15 units (cores, bytes (~888 TiB),
// GPUs). Kubernetes' own milli representation overflows int64 at ~9.2 * 10^15
// units; with this bound a replica's request times kMaxReplicasPerJob is
// checked (job_bounds) instead of overflowing.
inline constexpr std::int64_t kMaxQuantityMilli = 1'000'000'000'000'000'000;

// A whole job's request for one resource (per replica times replicas, summed
// over tasks): 2^62 milli-units (4.6 * 10^15 units, 4 PiB of memory), so that
// the job's own totals (hub::GangShape::total) cannot overflow int64.
inline constexpr std::int64_t kMaxJobTotalMilli = std::int64_t{1} << 62;

// Labels and annotations, as Kubernetes validates them: a label key's name
// part is at most 63 characters with an optional DNS-subdomain prefix of at
// most 253, a label value at most 63; annotations total at most 256 KiB.
inline constexpr std::size_t kMaxLabelNameBytes = 63;
inline constexpr std::size_t kMaxLabelPrefixBytes = 253;
inline constexpr std::size_t kMaxLabelValueBytes = 63;
inline constexpr std::size_t kMaxAnnotationsBytes = 256u << 10;
// Kubernetes has no count limit; 256 labels is far above any real object and
// keeps the scheduler's label matching cheap.
inline constexpr std::size_t kMaxLabels = 256;

// Names: a DNS-1123 subdomain (jobs, queues, PriorityClasses) is at most 253
// characters, a DNS-1123 label (task names, which become host names
// <job>-<task>-<index>) at most 63.
inline constexpr std::size_t kMaxSubdomainBytes = 253;
inline constexpr std::size_t kMaxDnsLabelBytes = 63;

}  // namespace gantry::config
