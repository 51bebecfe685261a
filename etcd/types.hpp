// The values the etcd client hands in and out: etcd v3's KeyValue, the
// compares and operations of a transaction, watch events. Plain data, the
// field names of etcd's rpc.proto / kv.proto, keys and values as raw bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gantry::etcd {

struct KeyValue {
  std::string key;
  std::string value;
  std::int64_t create_revision = 0;  // the revision that created the key (0: absent)
  std::int64_t mod_revision = 0;     // the revision of its last change
  std::int64_t version = 0;          // changes since it was created (1 after the first put)
  std::int64_t lease = 0;            // the lease it is attached to, 0 for none
};

// A range's kvs (sorted by key) and the store's revision when it was read.
struct RangeResult {
  std::int64_t revision = 0;
  std::vector<KeyValue> kvs;
  bool more = false;  // a limited range left keys out
};

// One condition of a transaction: the key's `target` compared with a number
// (revisions, version) or bytes (value). A key that does not exist has
// create_revision, mod_revision and version 0: "create_revision == 0" is how
// one writes "only if absent".
struct Compare {
  enum class Target { kVersion, kCreateRevision, kModRevision, kValue };
  enum class Result { kEqual, kNotEqual, kLess, kGreater };

  static Compare mod_revision(std::string key, Result result, std::int64_t revision);
  static Compare create_revision(std::string key, Result result, std::int64_t revision);
  static Compare version(std::string key, Result result, std::int64_t version);
  static Compare value(std::string key, Result result, std::string value);

  std::string key;
  Target target = Target::kModRevision;
  Result result = Result::kEqual;
  std::int64_t number = 0;  // for every target but kValue
  std::string bytes;        // for kValue
};

// One operation of a transaction's success or failure branch.
struct Op {
  enum class Kind { kPut, kDelete, kRange };

  static Op put(std::string key, std::string value, std::int64_t lease = 0);
  static Op remove(std::string key);
  static Op remove_prefix(std::string prefix);
  static Op get(std::string key);
  static Op range(std::string prefix);

  Kind kind = Kind::kRange;
  std::string key;
  std::string value;       // kPut
  std::int64_t lease = 0;  // kPut
  bool prefix = false;     // kDelete, kRange: every key starting with `key`
};

// What one operation of the executed branch answered.
struct OpResult {
  std::vector<KeyValue> kvs;  // kRange
  std::int64_t deleted = 0;   // kDelete
};

struct TxnResult {
  bool succeeded = false;         // every compare held: the success branch ran
  std::int64_t revision = 0;      // the store's revision after the transaction
  std::vector<OpResult> results;  // one per operation of the branch that ran
};

struct Event {
  enum class Type { kPut, kDelete };
  Type type = Type::kPut;
  KeyValue kv;  // on kDelete: key and mod_revision (the deletion's) only
};

// The events of one watch answer, all at or below `revision`.
struct WatchBatch {
  std::int64_t revision = 0;
  std::vector<Event> events;
};

}  // namespace gantry::etcd
