// gantryctl end to end (arguments -> command -> socket -> output, exit status)
// against a fake hub on a free loopback port.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <sstream>
#include <tuple>

#include "console/gantryctl.hpp"
#include "console/job_phase.hpp"
#include "support/temp_dir.hpp"
#include "tests/console/fake_hub.hpp"

namespace gantry::console {
namespace {

using testing::FakeHub;

struct Result {
  int status = -1;
  std::string out;
  std::string err;
};

// Runs gantryctl against `hub` the way a user set up by the README does: the
// hub's public key and a keypair in gantryctl's config directory.
Result gantryctl(const FakeHub& hub, std::vector<std::string> args,
                 const std::string& stdin_text = "") {
  const support::TempDir config("gantryctl-config");
  support::write_key_files(support::generate_curve_keypair("gantryctl"), config.path());
  config.write("hub.pub", hub.keys().public_key + "\n");
  Environment environment;
  environment.config_dir = config.path().string();
  args.insert(args.begin(), {"--hub", hub.endpoint()});
  std::istringstream in(stdin_text);
  std::ostringstream out, err;
  Result result;
  result.status = run_gantryctl(args, environment, in, out, err);
  result.out = out.str();
  result.err = err.str();
  return result;
}

template <class Request>
Request only_request(const FakeHub& hub) {
  const auto requests = hub.requests();
  EXPECT_EQ(requests.size(), 1u);
  protocol::DecodeError error;
  const auto request = protocol::decode_payload<Request>(requests.at(0), error);
  EXPECT_TRUE(request) << error.code << ": " << error.message;
  return request.value_or(Request{});
}

protocol::DescribeReply job_in_phase(const std::string& phase, const std::string& reason = "") {
  protocol::DescribeReply reply;
  reply.ok = true;
  reply.job.name = "j1";
  reply.job.phase = phase;
  reply.job.reason = reason;
  return reply;
}

// A hub taking SubmitJobsRequests as the real one answers them: a job per
// document named by its "name: " line, one per index for a document with
// gantry.io/array (indices 0 and 1 here), and a refusal for a name starting "bad".
FakeHub::Handler submitting_hub() {
  return [](const std::string& frame) -> std::vector<std::string> {
    protocol::DecodeError error;
    const auto envelope = protocol::decode_envelope(frame, error);
    const auto request = protocol::decode_payload<protocol::SubmitJobsRequest>(*envelope, error);
    protocol::SubmitJobsReply reply{true, "", {}};
    for (std::size_t i = 0; i < request->yamls.size(); ++i) {
      const std::string& yaml = request->yamls[i];
      const std::size_t at = yaml.find("name: ");
      const std::string name =
          at == std::string::npos ? "" : yaml.substr(at + 6, yaml.find('\n', at) - at - 6);
      const auto document = static_cast<std::int32_t>(i);
      if (name.rfind("bad", 0) == 0) {
        reply.jobs.push_back({document, false, "", "metadata.name: bad"});
      } else if (yaml.find("gantry.io/array") != std::string::npos) {
        reply.jobs.push_back({document, true, name + "-0", ""});
        reply.jobs.push_back({document, false, name + "-1", "a job with this name already exists"});
      } else {
        reply.jobs.push_back({document, true, name, ""});
      }
    }
    return {protocol::encode(reply, envelope->seq)};
  };
}

std::vector<std::vector<std::string>> sent_documents(const FakeHub& hub) {
  std::vector<std::vector<std::string>> sent;
  for (const protocol::Envelope& envelope : hub.requests()) {
    protocol::DecodeError error;
    const auto request = protocol::decode_payload<protocol::SubmitJobsRequest>(envelope, error);
    EXPECT_TRUE(request) << error.code << ": " << error.message;
    sent.push_back(request ? request->yamls : std::vector<std::string>{});
  }
  return sent;
}

TEST(Submit, SendsStdinAndPrintsTheJobName) {
  FakeHub hub(submitting_hub());
  const Result result = gantryctl(hub, {"submit", "-f", "-"}, "name: llm-pretrain\n");
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.out, "llm-pretrain\n");
  EXPECT_EQ(sent_documents(hub), (std::vector<std::vector<std::string>>{{"name: llm-pretrain\n"}}));
}

TEST(Submit, RefusalPrintsTheHubsErrorAndExits1) {
  FakeHub hub(submitting_hub());
  const Result result = gantryctl(hub, {"submit", "-f", "-"}, "name: bad\n");
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, "error: job refused: metadata.name: bad\n");
}

TEST(Submit, ARequestTheHubRefusesWholeIsSaidAndExits1) {
  FakeHub hub(testing::always_reply(protocol::SubmitJobsReply{
      false, "yamls: 1001 documents exceed the limit of 1000 per request", {}}));
  const Result result = gantryctl(hub, {"submit", "-f", "-"}, "name: a\n");
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(result.err,
            "error: jobs refused: yamls: 1001 documents exceed the limit of 1000 per request\n");
}

// A file of several jobs submits each, as kubectl create -f does, instead of
// the hub silently keeping the first document; they go in one request.
TEST(Submit, EachDocumentOfAFileIsItsOwnJobAndAllGoInOneRequest) {
  FakeHub hub(submitting_hub());
  const Result result = gantryctl(hub, {"submit", "-f", "-"}, "name: a\n---\nname: b\n");
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.out, "a\nb\n");
  EXPECT_EQ(sent_documents(hub),
            (std::vector<std::vector<std::string>>{{"name: a\n", "---\nname: b\n"}}));
}

TEST(Submit, ARefusedDocumentIsNamedAndTheOthersAreStillSubmitted) {
  FakeHub hub(submitting_hub());
  const Result result =
      gantryctl(hub, {"submit", "-f", "-"}, "name: bad-1\n---\nname: good\n---\nname: bad-2\n");
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(result.out, "good\n");
  EXPECT_EQ(result.err,
            "error: job refused (document 1 of 3): metadata.name: bad\n"
            "error: job refused (document 3 of 3): metadata.name: bad\n");
}

TEST(Submit, ADirectoryIsItsManifestsInNameOrderAndSeveralFilesAreNamedInErrors) {
  const support::TempDir dir("submit-dir");
  dir.write("b.yaml", "name: bad\n");
  dir.write("a.yml", "name: first\n---\nname: second\n");
  dir.write("c.json", "name: third\n");
  dir.write("README.md", "name: not-a-manifest\n");
  std::filesystem::create_directory(dir.path() / "sub");
  dir.write("sub/d.yaml", "name: below\n");
  FakeHub hub(submitting_hub());
  const Result result = gantryctl(hub, {"submit", "-f", dir.path().string()});
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(result.out, "first\nsecond\nthird\n");
  EXPECT_EQ(result.err, "error: job refused (" + (dir.path() / "b.yaml").string() +
                            "): metadata.name: bad\n");
  EXPECT_EQ(sent_documents(hub).size(), 1u) << "one request for the directory";

  FakeHub again(submitting_hub());
  const Result recursive =
      gantryctl(again, {"submit", "-R", "-f", dir.path().string(), "-f", "-"}, "name: piped\n");
  EXPECT_EQ(recursive.out, "first\nsecond\nthird\nbelow\npiped\n");
}

TEST(Submit, AnArrayGoesInARequestOfItsOwnAndItsRefusedElementsAreNamed) {
  FakeHub hub(submitting_hub());
  const Result result = gantryctl(
      hub, {"submit", "-f", "-"},
      "name: a\n---\nname: sweep\n# gantry.io/array\n---\nname: b\n---\nname: c\n");
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(result.out, "a\nsweep-0\nb\nc\n");
  EXPECT_EQ(result.err,
            "error: job refused (document 2 of 4, sweep-1): a job with this name already exists\n");
  const auto sent = sent_documents(hub);
  ASSERT_EQ(sent.size(), 3u);
  EXPECT_EQ(sent[0].size(), 1u);
  EXPECT_EQ(sent[1].size(), 1u);
  EXPECT_EQ(sent[2].size(), 2u);
}

TEST(Submit, ManyDocumentsGoInRequestsOfAtMostTheHubsLimit) {
  std::string documents;
  for (std::size_t i = 0; i < protocol::kMaxSubmitDocuments + 5; ++i)
    documents += "---\nname: job-" + std::to_string(i) + "\n";
  FakeHub hub(submitting_hub());
  const Result result = gantryctl(hub, {"submit", "-f", "-"}, documents);
  EXPECT_EQ(result.status, 0) << result.err;
  const auto sent = sent_documents(hub);
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].size(), protocol::kMaxSubmitDocuments);
  EXPECT_EQ(sent[1].size(), 5u);
  EXPECT_EQ(std::count(result.out.begin(), result.out.end(), '\n'),
            static_cast<long>(protocol::kMaxSubmitDocuments + 5));
}

TEST(Submit, MissingFileOrEmptyDirectoryIsAUsageErrorAndSendsNothing) {
  FakeHub hub(submitting_hub());
  const Result result = gantryctl(hub, {"submit", "-f", "/nonexistent/job.yaml"});
  EXPECT_EQ(result.status, 2);
  EXPECT_NE(result.err.find("\"/nonexistent/job.yaml\": No such file or directory"),
            std::string::npos)
      << result.err;
  const support::TempDir empty("submit-empty");
  const Result nothing = gantryctl(hub, {"submit", "-f", empty.path().string()});
  EXPECT_EQ(nothing.status, 2);
  EXPECT_NE(nothing.err.find("holds no .yaml, .yml or .json file (-R reads its subdirectories too)"),
            std::string::npos)
      << nothing.err;
  const Result twice = gantryctl(hub, {"submit", "-f", "-", "-f", "-"});
  EXPECT_EQ(twice.status, 2);
  EXPECT_NE(twice.err.find("-f: \"-\" (stdin) is given twice"), std::string::npos) << twice.err;
  EXPECT_TRUE(hub.requests().empty());
}

TEST(Get, JsonListsWhatTheHubSent) {
  protocol::ListReply reply;
  protocol::QueueInfo queue;
  queue.name = "research";
  reply.queues = {queue};
  FakeHub hub(testing::always_reply(reply));
  const Result result = gantryctl(hub, {"get", "queues", "-o", "json"});
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.out.rfind("[\n  {\n    \"name\": \"research\",\n", 0), 0u) << result.out;
  EXPECT_EQ(only_request<protocol::ListRequest>(hub).kind, "queues");
}

TEST(Get, EmptyTableSaysSoOnStderr) {
  FakeHub hub(testing::always_reply(protocol::ListReply{}));
  const Result result = gantryctl(hub, {"get", "jobs"});
  EXPECT_EQ(result.status, 0);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, "No jobs found.\n");
}

TEST(Describe, UnknownNameIsTheHubsErrorAndExit1) {
  FakeHub hub(testing::always_reply(
      protocol::DescribeReply{false, "job \"nope\" not found", {}, {}, {}, {}, {}}));
  const Result result = gantryctl(hub, {"describe", "job", "nope"});
  EXPECT_EQ(result.status, 1);
  EXPECT_NE(result.err.find("job \"nope\" not found"), std::string::npos);
  const auto request = only_request<protocol::DescribeRequest>(hub);
  EXPECT_EQ(request.kind, "job");
  EXPECT_EQ(request.name, "nope");
}

TEST(Cancel, SuccessAndRefusalMapToExitStatus) {
  {
    FakeHub hub(testing::always_reply(protocol::AdminResult{true, "job/j1 cancelled", ""}));
    const Result result = gantryctl(hub, {"cancel", "job", "j1"});
    EXPECT_EQ(result.status, 0);
    EXPECT_EQ(result.out, "job/j1 cancelled\n");
    EXPECT_EQ(only_request<protocol::CancelRequest>(hub).name, "j1");
  }
  {
    FakeHub hub(testing::always_reply(protocol::AdminResult{false, "", "job j1 already finished"}));
    const Result result = gantryctl(hub, {"cancel", "job", "j1"});
    EXPECT_EQ(result.status, 1);
    EXPECT_EQ(result.err, "error: job j1 already finished\n");
  }
}

TEST(Web, PrintsTheUrlAloneOnStdoutAndForWhomOnStderr) {
  FakeHub hub(testing::always_reply(protocol::WebLoginReply{
      true, "", "http://127.0.0.1:7802/login?ticket=ab12&job=j1", "alice", 60'000}));
  const Result result = gantryctl(hub, {"web", "--job", "j1"});
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.out, "http://127.0.0.1:7802/login?ticket=ab12&job=j1\n");
  EXPECT_EQ(result.err, "open it within 1m: it logs a browser in once, as key \"alice\"\n");
  EXPECT_EQ(only_request<protocol::WebLoginRequest>(hub).job, "j1");
}

TEST(Web, AHubWithoutAWebViewSaysSoAndExits1) {
  FakeHub hub(testing::always_reply(
      protocol::WebLoginReply{false, "this hub serves no web view", "", "", 0}));
  const Result result = gantryctl(hub, {"web"});
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, "error: this hub serves no web view\n");
  EXPECT_EQ(only_request<protocol::WebLoginRequest>(hub).job, "");
}

TEST(ApplyAndDelete, SendTheirRequests) {
  {
    FakeHub hub(
        testing::always_reply(protocol::AdminResult{true, "queue research configured", ""}));
    const Result result = gantryctl(hub, {"apply", "-f", "-"}, "kind: Queue\n");
    EXPECT_EQ(result.status, 0) << result.err;
    EXPECT_EQ(result.out, "queue research configured\n");
    EXPECT_EQ(only_request<protocol::ApplyRequest>(hub).yaml, "kind: Queue\n");
  }
  {
    FakeHub hub(testing::always_reply(protocol::AdminResult{true, "", ""}));
    const Result result = gantryctl(hub, {"delete", "queue", "research"});
    EXPECT_EQ(result.status, 0) << result.err;
    EXPECT_EQ(result.out, "queue/research deleted\n");
    const auto request = only_request<protocol::DeleteRequest>(hub);
    EXPECT_EQ(request.kind, "queue");
    EXPECT_EQ(request.name, "research");
  }
}

TEST(ClusterActions, SendTheActionAndPrintTheHubsMessage) {
  for (const std::string action : {"cordon", "uncordon", "drain"}) {
    const std::string message = "cluster east " + action + "ed (from the hub)";
    FakeHub hub(testing::always_reply(protocol::AdminResult{true, message, ""}));
    const Result result = gantryctl(hub, {action, "cluster", "east"});
    EXPECT_EQ(result.status, 0) << action << ": " << result.err;
    EXPECT_EQ(result.out, message + "\n");
    EXPECT_EQ(result.err, "");
    const auto request = only_request<protocol::ClusterActionRequest>(hub);
    EXPECT_EQ(request.action, action);
    EXPECT_EQ(request.name, "east");
  }
}

TEST(ClusterActions, SayWhatWasDoneWhenTheHubDoesNot) {
  FakeHub hub(testing::always_reply(protocol::AdminResult{true, "", ""}));
  EXPECT_EQ(gantryctl(hub, {"cordon", "cluster", "east"}).out, "cluster/east cordoned\n");
  EXPECT_EQ(gantryctl(hub, {"uncordon", "cluster", "east"}).out, "cluster/east uncordoned\n");
  EXPECT_EQ(gantryctl(hub, {"drain", "cluster", "east"}).out, "cluster/east drained\n");
}

TEST(ClusterActions, RefusalPrintsTheHubsErrorAndExits1) {
  FakeHub hub(
      testing::always_reply(protocol::AdminResult{false, "", "cluster \"north\" not found"}));
  const Result result = gantryctl(hub, {"drain", "cluster", "north"});
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, "error: cluster \"north\" not found\n");
}

TEST(ClusterActions, AnotherKindIsAUsageErrorAndSendsNothing) {
  FakeHub hub([](const std::string&) { return std::vector<std::string>{}; });
  const Result result = gantryctl(hub, {"cordon", "node", "east"});
  EXPECT_EQ(result.status, 2);
  EXPECT_NE(result.err.find("cordon: unknown kind \"node\" (expected cluster)"), std::string::npos)
      << result.err;
  EXPECT_TRUE(hub.requests().empty());
}

TEST(Get, ClustersTableShowsStatus) {
  protocol::ListReply reply;
  protocol::ClusterInfo east;
  east.name = "east";
  east.ready = true;
  east.cordoned = true;
  reply.clusters = {east};
  FakeHub hub(testing::always_reply(reply));
  const Result result = gantryctl(hub, {"get", "clusters"});
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.out,
            "NAME   STATUS                     NODES   GPU(alloc/cap)   CPU   MEMORY\n"
            "east   Ready,SchedulingDisabled   0       0/0              0/0   0/0\n");
}

TEST(Get, ClustersTableFlagsASummaryFit) {
  protocol::ListReply reply;
  protocol::ClusterInfo karmada;
  karmada.name = "member1";
  karmada.ready = true;
  karmada.nodes = 1;
  karmada.fit_note = "no node models: summary fit";
  reply.clusters = {karmada};
  FakeHub hub(testing::always_reply(reply));
  const Result result = gantryctl(hub, {"get", "clusters"});
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.out,
            "NAME      STATUS             NODES   GPU(alloc/cap)   CPU   MEMORY\n"
            "member1   Ready,SummaryFit   1       0/0              0/0   0/0\n");
}

TEST(Get, ClustersWideAddsGpuUsageAndOcmScores) {
  protocol::ListReply reply;
  protocol::ClusterInfo east;
  east.name = "east";
  east.ready = true;
  east.gpus_reporting = 8;
  east.gpu_utilization_percent = 50;
  east.gpu_memory_used_bytes = 12LL << 30;
  east.gpu_memory_total_bytes = 640LL << 30;
  east.idle_gpus = 3;
  east.scores = {1, 2, 3, 4, 5, 6, 1};
  reply.clusters = {east};
  FakeHub hub(testing::always_reply(reply));
  const Result result = gantryctl(hub, {"get", "clusters", "-o", "wide"});
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.out,
            "NAME   STATUS   NODES   GPU(alloc/cap)   CPU   MEMORY   GPU-UTIL   GPU-MEM      "
            "IDLE-GPUS   CPU-NODE   CPU-CLUS   MEM-NODE   MEM-CLUS   GPU-NODE   GPU-CLUS   FIT\n"
            "east   Ready    0       0/0              0/0   0/0      50%        12Gi/640Gi   "
            "3           1          2          3          4          5          6          "
            "per-node\n");
}

protocol::ListReply three_jobs() {
  protocol::ListReply reply;
  for (const auto& [name, queue, cluster] :
       {std::tuple{"a", "research", "east"}, {"b", "prod", "west"}, {"c", "research", "west"}}) {
    protocol::JobInfo job;
    job.name = name;
    job.queue = queue;
    job.phase = "Running";
    job.clusters = {cluster};
    reply.jobs.push_back(job);
  }
  return reply;
}

// kubectl get KIND NAME: the one object (in -o json, not an array of one);
// a name that is not there is an error, exit 1.
TEST(Get, ANameShowsThatOneAndAMissingNameIsAnError) {
  FakeHub hub(testing::always_reply(three_jobs()));
  const Result one = gantryctl(hub, {"get", "job", "b", "-o", "json"});
  EXPECT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(one.out.rfind("{\n  \"name\": \"b\",\n", 0), 0u) << one.out;
  const Result table = gantryctl(hub, {"get", "jobs", "c"});
  EXPECT_EQ(table.status, 0) << table.err;
  ASSERT_EQ(std::count(table.out.begin(), table.out.end(), '\n'), 2) << table.out;
  EXPECT_EQ(table.out.substr(table.out.find('\n') + 1, 2), "c ") << table.out;
  const Result missing = gantryctl(hub, {"get", "job", "nope"});
  EXPECT_EQ(missing.status, 1);
  EXPECT_EQ(missing.out, "");
  EXPECT_EQ(missing.err, "error: job \"nope\" not found\n");
}

TEST(Get, JobsAreFilteredByQueueAndByCluster) {
  FakeHub hub(testing::always_reply(three_jobs()));
  EXPECT_EQ(gantryctl(hub, {"get", "jobs", "--queue", "research", "-o", "name"}).out,
            "job/a\njob/c\n");
  EXPECT_EQ(gantryctl(hub, {"get", "jobs", "--cluster", "west", "-o", "name"}).out,
            "job/b\njob/c\n");
  EXPECT_EQ(
      gantryctl(hub, {"get", "jobs", "--queue", "research", "--cluster", "west", "-o", "name"}).out,
      "job/c\n");
  const Result none = gantryctl(hub, {"get", "jobs", "--queue", "other"});
  EXPECT_EQ(none.err, "No jobs found.\n");
  const Result refused = gantryctl(hub, {"get", "queues", "--queue", "research"});
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find("--queue: only get jobs takes it"), std::string::npos) << refused.err;
}

TEST(Get, NameOutputIsKindSlashNameAndYamlIsTheJsonObjectsAsYaml) {
  protocol::ListReply reply;
  protocol::PriorityClassInfo high;
  high.name = "high";
  high.value = 1000;
  reply.priority_classes = {high};
  FakeHub hub(testing::always_reply(reply));
  EXPECT_EQ(gantryctl(hub, {"get", "priorityclasses", "-o", "name"}).out, "priorityclass/high\n");
  const Result yaml = gantryctl(hub, {"get", "priorityclass", "high", "-o", "yaml"});
  EXPECT_EQ(yaml.status, 0) << yaml.err;
  EXPECT_EQ(yaml.out.rfind("name: high\nvalue: 1000\n", 0), 0u) << yaml.out;
  const Result listed = gantryctl(hub, {"get", "priorityclasses", "-o", "yaml"});
  EXPECT_EQ(listed.out.rfind("- name: high\n  value: 1000\n", 0), 0u) << listed.out;
  const Result events = gantryctl(hub, {"get", "events", "-o", "name"});
  EXPECT_EQ(events.status, 2);
  EXPECT_NE(events.err.find("-o name: get events lists no named objects"), std::string::npos)
      << events.err;
}

TEST(Get, ClustersAreListedByNameWhateverOrderTheHubKeeps) {
  protocol::ListReply reply;
  for (const char* name : {"west", "east", "north"}) {
    protocol::ClusterInfo cluster;
    cluster.name = name;
    reply.clusters.push_back(cluster);
  }
  FakeHub hub(testing::always_reply(reply));
  EXPECT_EQ(gantryctl(hub, {"get", "clusters", "-o", "name"}).out,
            "cluster/east\ncluster/north\ncluster/west\n");
  const std::string table = gantryctl(hub, {"get", "clusters"}).out;
  EXPECT_LT(table.find("\neast "), table.find("\nnorth ")) << table;
  EXPECT_LT(table.find("\nnorth "), table.find("\nwest ")) << table;
}

TEST(Get, UnknownOutputFormatNamesTheChoices) {
  FakeHub hub([](const std::string&) { return std::vector<std::string>{}; });
  const Result result = gantryctl(hub, {"get", "clusters", "-o", "xml"});
  EXPECT_EQ(result.status, 2);
  EXPECT_NE(result.err.find(
                "-o: unknown output format \"xml\" (expected table, wide, json, yaml or name)"),
            std::string::npos)
      << result.err;
  EXPECT_TRUE(hub.requests().empty());
}

TEST(Describe, SplitJobShowsItsParts) {
  protocol::DescribeReply reply = job_in_phase("Running");
  reply.job.clusters = {"east", "west"};
  reply.job.parts = {{"east", {{"worker", 4}}}, {"west", {{"worker", 4}}}};
  FakeHub hub(testing::always_reply(reply));
  const Result result = gantryctl(hub, {"describe", "job", "j1"});
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_NE(result.out.find("  Split:   across 2 clusters\n"
                            "  Parts:   east: worker x4\n"
                            "           west: worker x4\n"),
            std::string::npos)
      << result.out;
}

TEST(Wait, ReachedPhaseExits0) {
  FakeHub hub(testing::always_reply(job_in_phase("Running")));
  const Result result = gantryctl(hub, {"wait", "job", "j1", "--for", "phase=Running"});
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.out, "job/j1 reached phase Running\n");
}

TEST(Wait, KeepsAskingUntilThePhaseIsReached) {
  std::atomic<int> asked{0};
  FakeHub hub([&asked](const std::string& request) -> std::vector<std::string> {
    protocol::DecodeError error;
    const auto envelope = protocol::decode_envelope(request, error);
    const bool later = ++asked >= 3;
    return {protocol::encode(job_in_phase(later ? "Completed" : "Running"), envelope->seq)};
  });
  const Result result = gantryctl(hub, {"wait", "job", "j1", "--for", "phase=Completed"});
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(hub.requests().size(), 3u);
}

TEST(Wait, DifferentTerminalPhaseExits1Early) {
  FakeHub hub(testing::always_reply(job_in_phase("Failed", "worker-3 exited 137")));
  const Result result = gantryctl(hub, {"wait", "job", "j1", "--for", "phase=Completed"});
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(result.err,
            "job/j1 ended in phase Failed (waited for Completed): worker-3 exited 137\n");
  EXPECT_EQ(hub.requests().size(), 1u);
}

TEST(Wait, TimeoutPrintsTheLastSeenPhase) {
  FakeHub hub(testing::always_reply(job_in_phase("Pending")));
  const Result result =
      gantryctl(hub, {"wait", "job", "j1", "--for", "phase=Running", "--timeout", "0s"});
  EXPECT_EQ(result.status, 1);
  EXPECT_NE(result.err.find("last seen phase: Pending"), std::string::npos) << result.err;
}

TEST(Errors, SilentHubExits2WithTheTimeoutMessage) {
  FakeHub hub([](const std::string&) { return std::vector<std::string>{}; });
  const Result result = gantryctl(hub, {"--timeout", "100ms", "get", "jobs"});
  EXPECT_EQ(result.status, 2);
  const std::string expected = "error: hub at " + hub.endpoint() + " did not answer within 100ms";
  EXPECT_EQ(result.err.rfind(expected, 0), 0u) << result.err;
}

TEST(Errors, BadArgumentsExit2WithUsageAndContactNoHub) {
  FakeHub hub([](const std::string&) { return std::vector<std::string>{}; });
  const Result result = gantryctl(hub, {"get", "pods"});
  EXPECT_EQ(result.status, 2);
  EXPECT_NE(result.err.find("unknown kind \"pods\""), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("Usage:"), std::string::npos) << result.err;
  EXPECT_TRUE(hub.requests().empty());
}

TEST(Errors, AnUnknownCommandIsOneLineAndAPointerToHelp) {
  FakeHub hub([](const std::string&) { return std::vector<std::string>{}; });
  const Result result = gantryctl(hub, {"frobnicate"});
  EXPECT_EQ(result.status, 2);
  EXPECT_EQ(result.err,
            "gantryctl: unknown command \"frobnicate\"\n"
            "Run 'gantryctl help' for every command, its flags and exit statuses.\n");
}

TEST(Errors, ACommandsErrorShowsThatCommandsUsageOnly) {
  FakeHub hub([](const std::string&) { return std::vector<std::string>{}; });
  const Result result = gantryctl(hub, {"logs", "job"});
  EXPECT_EQ(result.status, 2);
  EXPECT_NE(result.err.find("Usage:\n  gantryctl logs job NAME"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("gantryctl get "), std::string::npos) << "no other command's";
}

TEST(LocalCommands, HelpForOneCommandAndDashDashVersion) {
  std::istringstream in;
  std::ostringstream err;
  Environment nowhere;
  nowhere.hub = "tcp://127.0.0.1:1";
  nowhere.home = "/nonexistent";
  for (const std::vector<std::string>& asked :
       {std::vector<std::string>{"help", "wait"}, {"wait", "--help"}, {"wait", "job", "x", "-h"}}) {
    std::ostringstream out;
    EXPECT_EQ(run_gantryctl(asked, nowhere, in, out, err), 0);
    EXPECT_EQ(out.str().rfind("Usage:\n  gantryctl wait job NAME", 0), 0u) << out.str();
    EXPECT_EQ(out.str().find("gantryctl get "), std::string::npos) << out.str();
  }
  std::ostringstream version;
  EXPECT_EQ(run_gantryctl({"--version"}, nowhere, in, version, err), 0);
  EXPECT_EQ(version.str().rfind("gantryctl ", 0), 0u) << version.str();
  std::ostringstream unknown;
  EXPECT_EQ(run_gantryctl({"help", "nope"}, nowhere, in, unknown, err), 2);
  EXPECT_NE(err.str().find("help: unknown command \"nope\""), std::string::npos) << err.str();
}

// Every phase --for accepts is one the help names (it listed six of ten).
TEST(LocalCommands, WaitsHelpNamesEveryPhaseItAccepts) {
  std::istringstream in;
  std::ostringstream out, err;
  Environment nowhere;
  nowhere.hub = "tcp://127.0.0.1:1";
  nowhere.home = "/nonexistent";
  EXPECT_EQ(run_gantryctl({"help", "wait"}, nowhere, in, out, err), 0);
  for (const char* phase : {"Pending", "Running", "Restarting", "Completing", "Aborting",
                            "Terminating", "Completed", "Failed", "Aborted", "Terminated"}) {
    EXPECT_NE(out.str().find(phase), std::string::npos) << phase << " in\n" << out.str();
    EXPECT_EQ(canonical_job_phase("--for", phase), phase);
  }
}

TEST(LocalCommands, VersionAndHelpNeedNoHub) {
  std::istringstream in;
  std::ostringstream out, err;
  // An endpoint nobody listens on: version must not try it.
  Environment nowhere;
  nowhere.hub = "tcp://127.0.0.1:1";
  nowhere.home = "/nonexistent";  // no keys either: version must not need them
  EXPECT_EQ(run_gantryctl({"version"}, nowhere, in, out, err), 0);
  EXPECT_EQ(out.str().rfind("gantryctl ", 0), 0u) << out.str();
  std::ostringstream help;
  EXPECT_EQ(run_gantryctl({"help"}, nowhere, in, help, err), 0);
  EXPECT_NE(help.str().find("wait job NAME --for phase=PHASE"), std::string::npos);
  EXPECT_NE(
      help.str().find("  drain cluster NAME              cordon, then stop its jobs so they "
                      "are placed elsewhere\n"
                      "                                  (each moves once its run has stopped)\n"),
      std::string::npos)
      << help.str();
}

}  // namespace
}  // namespace gantry::console
