// Volcano's job plugins as the agent computes them: each plugin's env, files
// and arguments (exact strings, as Volcano's controller writes them), the
// arguments refused at admission, and the process executor writing a part's
// files where its replicas are told to look.
#include "agents/job_plugins.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>

#include "agent_test_support.hpp"
#include "agents/process_executor.hpp"
#include "support/temp_dir.hpp"

namespace gantry::agents {
namespace {

using namespace std::chrono_literals;

protocol::JobSpec job_with(const std::string& name,
                           const std::vector<std::pair<std::string, std::int32_t>>& tasks,
                           std::map<std::string, std::vector<std::string>> plugins) {
  protocol::JobSpec job;
  job.name = name;
  for (const auto& [task, replicas] : tasks) {
    job.tasks.emplace_back();
    job.tasks.back().name = task;
    job.tasks.back().replicas = replicas;
  }
  job.plugins = std::move(plugins);
  return job;
}

std::map<std::string, std::string> env_of(const PluginOutput& output) {
  std::map<std::string, std::string> env;
  for (const protocol::EnvVar& var : output.env) env[var.name] = var.value;
  return env;
}

const PluginFile* file_named(const PluginOutput& output, const std::string& name) {
  for (const PluginFile& file : output.files)
    if (file.name == name) return &file;
  return nullptr;
}

PluginOutput output_for(const protocol::JobSpec& job, std::uint32_t task, std::int32_t index,
                        const ReplicaHosts* hosts = nullptr, const SshKeyPair* keys = nullptr) {
  PluginReplica replica;
  replica.job = &job;
  replica.task = task;
  replica.index = index;
  replica.hosts = hosts;
  return plugin_output(replica, keys);
}

TEST(JobPlugins, EnvGivesTheIndexWithinTheTask) {
  const auto job = job_with("j", {{"ps", 1}, {"worker", 3}}, {{"env", {}}});
  const PluginOutput output = output_for(job, 1, 2);
  ASSERT_EQ(output.env.size(), 2u);
  EXPECT_EQ(output.env[0].name, "VK_TASK_INDEX");
  EXPECT_EQ(output.env[0].value, "2");
  EXPECT_EQ(output.env[1].name, "VC_TASK_INDEX");
  EXPECT_EQ(output.env[1].value, "2");
  EXPECT_TRUE(output.files.empty());
}

TEST(JobPlugins, SvcListsEveryTasksHostsInEnvAndHostsFiles) {
  const auto job = job_with("tf", {{"ps", 1}, {"mpi-worker", 2}}, {{"svc", {}}});
  const auto env = env_of(output_for(job, 0, 0));
  EXPECT_EQ(env.at("VC_PS_HOSTS"), "tf-ps-0.tf");
  EXPECT_EQ(env.at("VC_PS_NUM"), "1");
  EXPECT_EQ(env.at("VC_MPI_WORKER_HOSTS"), "tf-mpi-worker-0.tf,tf-mpi-worker-1.tf");
  EXPECT_EQ(env.at("VC_MPI_WORKER_NUM"), "2");
  const PluginOutput output = output_for(job, 0, 0);
  const PluginFile* hosts = file_named(output, "mpi_worker.host");
  ASSERT_NE(hosts, nullptr);
  EXPECT_EQ(hosts->dir, PluginDir::kVolcano);
  EXPECT_EQ(hosts->content, "tf-mpi-worker-0.tf\ntf-mpi-worker-1.tf");
  ASSERT_NE(file_named(output, "VC_MPI_WORKER_NUM"), nullptr);
  EXPECT_EQ(file_named(output, "VC_MPI_WORKER_NUM")->content, "2");
}

TEST(JobPlugins, HostsAreWhatTheExecutorSays) {
  const auto job = job_with("j", {{"a", 2}}, {{"svc", {}}});
  const ReplicaHosts hosts = {{"127.0.0.1", "127.0.0.1"}};
  EXPECT_EQ(env_of(output_for(job, 0, 0, &hosts)).at("VC_A_HOSTS"), "127.0.0.1,127.0.0.1");
}

TEST(JobPlugins, PartHostsNameThisPartsReplicasByTheAgentsAddress) {
  const auto job = job_with("j", {{"m", 1}, {"w", 3}}, {{"svc", {}}});
  std::vector<RunReplica> here(2);
  here[0].task = 1;
  here[0].index = 1;
  here[1].task = 1;
  here[1].index = 2;
  const ReplicaHosts hosts = part_hosts(job, here, "10.0.0.7");
  EXPECT_EQ(hosts, (ReplicaHosts{{"j-m-0.j"}, {"j-w-0.j", "10.0.0.7", "10.0.0.7"}}));
}

TEST(JobPlugins, SshMountsTheKeypairAndAConfigNamingEveryReplica) {
  const auto job = job_with("mpi", {{"master", 1}, {"worker", 2}}, {{"ssh", {"--ssh-port=2022"}}});
  const SshKeyPair keys{"PRIVATE", "ssh-rsa KEY\n"};
  const PluginOutput output = output_for(job, 1, 0, nullptr, &keys);
  ASSERT_NE(file_named(output, "id_rsa"), nullptr);
  EXPECT_EQ(file_named(output, "id_rsa")->content, "PRIVATE");
  EXPECT_EQ(file_named(output, "id_rsa")->mode, 0600u);
  EXPECT_EQ(file_named(output, "id_rsa")->dir, PluginDir::kSsh);
  EXPECT_EQ(file_named(output, "id_rsa.pub")->content, "ssh-rsa KEY\n");
  EXPECT_EQ(file_named(output, "authorized_keys")->content, "ssh-rsa KEY\n");
  EXPECT_EQ(file_named(output, "config")->content,
            "StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n"
            "Host mpi-master-0\n  HostName mpi-master-0.mpi\n  Port 2022\n"
            "Host mpi-worker-0\n  HostName mpi-worker-0.mpi\n  Port 2022\n"
            "Host mpi-worker-1\n  HostName mpi-worker-1.mpi\n  Port 2022\n");
  EXPECT_TRUE(output.env.empty());
}

TEST(JobPlugins, SshKeysAreAnRsaPairUnlessTheArgumentsGiveOne) {
  const auto generated = ssh_keys_for(job_with("j", {{"a", 1}}, {{"ssh", {}}}));
  EXPECT_EQ(generated.private_key.rfind("-----BEGIN RSA PRIVATE KEY-----\n", 0), 0u);
  EXPECT_EQ(generated.public_key.rfind("ssh-rsa AAAAB3NzaC1yc2E", 0), 0u);
  EXPECT_EQ(generated.public_key.back(), '\n');
  const auto other = ssh_keys_for(job_with("j", {{"a", 1}}, {{"ssh", {}}}));
  EXPECT_NE(other.public_key, generated.public_key);

  const auto given = ssh_keys_for(job_with(
      "j", {{"a", 1}}, {{"ssh", {"--ssh-private-key=PRIV", "--ssh-public-key=ssh-rsa PUB"}}}));
  EXPECT_EQ(given.private_key, "PRIV");
  EXPECT_EQ(given.public_key, "ssh-rsa PUB");
}

TEST(JobPlugins, PytorchGivesMasterAndWorkerRanksAndTurnsOnSvc) {
  const auto job = job_with("pt", {{"master", 1}, {"worker", 3}}, {{"pytorch", {}}});
  const auto master = env_of(output_for(job, 0, 0));
  EXPECT_EQ(master.at("MASTER_ADDR"), "pt-master-0.pt");
  EXPECT_EQ(master.at("MASTER_PORT"), "23456");
  EXPECT_EQ(master.at("WORLD_SIZE"), "4");
  EXPECT_EQ(master.at("RANK"), "0");
  EXPECT_EQ(master.at("VC_WORKER_NUM"), "3");  // svc comes with it
  const auto worker = env_of(output_for(job, 1, 2));
  EXPECT_EQ(worker.at("RANK"), "3");
  EXPECT_EQ(worker.at("WORLD_SIZE"), "4");
}

TEST(JobPlugins, PytorchTakesTaskNamesAndPortAndTheExecutorsRendezvousPort) {
  const auto job = job_with("pt", {{"head", 1}, {"tail", 2}, {"other", 1}},
                            {{"pytorch", {"--master=head", "--worker", "tail", "-port=1234"}}});
  const auto tail = env_of(output_for(job, 1, 0));
  EXPECT_EQ(tail.at("MASTER_ADDR"), "pt-head-0.pt");
  EXPECT_EQ(tail.at("MASTER_PORT"), "1234");
  EXPECT_EQ(tail.at("WORLD_SIZE"), "3");
  EXPECT_EQ(tail.at("RANK"), "1");
  EXPECT_EQ(env_of(output_for(job, 2, 0)).count("RANK"), 0u);  // neither master nor worker

  PluginReplica replica;
  replica.job = &job;
  replica.master_port = 40000;
  EXPECT_EQ(env_of(plugin_output(replica, nullptr)).at("MASTER_PORT"), "40000");
}

TEST(JobPlugins, TensorflowWritesTfConfigAsVolcano) {
  const auto job = job_with("tf", {{"ps", 1}, {"worker", 2}, {"chief", 1}}, {{"tensorflow", {}}});
  EXPECT_EQ(env_of(output_for(job, 1, 1)).at("TF_CONFIG"),
            "{\"cluster\":{\"ps\":[\"tf-ps-0.tf:2222\"],\"worker\":[\"tf-worker-0.tf:2222\","
            "\"tf-worker-1.tf:2222\"],\"chief\":[\"tf-chief-0.tf:2222\"]},"
            "\"task\":{\"type\":\"worker\",\"index\":1}}");
  EXPECT_NE(env_of(output_for(job, 2, 0))
                .at("TF_CONFIG")
                .find("\"task\":{\"type\":\"chief\",\"index\":0}"),
            std::string::npos);
}

TEST(JobPlugins, TensorflowRolesPortsAndDistinctPortsOnOneMachine) {
  const auto job = job_with("tf", {{"server", 1}, {"trainer", 2}},
                            {{"tensorflow", {"--ps=server", "--worker=trainer", "--port=5000"}}});
  const ReplicaHosts hosts = {{"127.0.0.1"}, {"127.0.0.1", "127.0.0.1"}};
  PluginReplica replica;
  replica.job = &job;
  replica.task = 0;
  replica.hosts = &hosts;
  EXPECT_EQ(env_of(plugin_output(replica, nullptr)).at("TF_CONFIG"),
            "{\"cluster\":{\"ps\":[\"127.0.0.1:5000\"],\"worker\":[\"127.0.0.1:5000\","
            "\"127.0.0.1:5000\"]},\"task\":{\"type\":\"ps\",\"index\":0}}");
  replica.distinct_ports_from = 30000;
  EXPECT_EQ(env_of(plugin_output(replica, nullptr)).at("TF_CONFIG"),
            "{\"cluster\":{\"ps\":[\"127.0.0.1:30000\"],\"worker\":[\"127.0.0.1:30001\","
            "\"127.0.0.1:30002\"]},\"task\":{\"type\":\"ps\",\"index\":0}}");
}

TEST(JobPlugins, TfConfigIsValidJsonWhateverTheHostNamesHold) {
  const auto job = job_with("tf", {{"server", 1}, {"trainer", 1}},
                            {{"tensorflow", {"--ps=server", "--worker=trainer", "--port=5000"}}});
  const ReplicaHosts hosts = {{"quote\"back\\slash"}, {"tab\tnewline\ncontrol\x01"}};
  PluginReplica replica;
  replica.job = &job;
  replica.task = 1;
  replica.hosts = &hosts;
  const auto config =
      nlohmann::json::parse(env_of(plugin_output(replica, nullptr)).at("TF_CONFIG"));
  EXPECT_EQ(config["cluster"]["ps"][0], "quote\"back\\slash:5000");
  EXPECT_EQ(config["cluster"]["worker"][0], "tab\tnewline\ncontrol\x01:5000");
  EXPECT_EQ(config["task"]["type"], "worker");
}

TEST(JobPlugins, TensorflowLeavesAStandAloneJobAlone) {
  const auto job = job_with("tf", {{"worker", 1}}, {{"tensorflow", {}}});
  EXPECT_EQ(env_of(output_for(job, 0, 0)).count("TF_CONFIG"), 0u);
}

TEST(JobPlugins, MpiGivesTheMasterItsWorkersAndTurnsOnSshAndSvc) {
  const auto job = job_with("m", {{"mpimaster", 1}, {"mpiworker", 2}},
                            {{"mpi", {"--master=mpimaster", "--worker=mpiworker", "--port=22"}}});
  const SshKeyPair keys{"PRIVATE", "PUBLIC"};
  const PluginOutput master = output_for(job, 0, 0, nullptr, &keys);
  EXPECT_EQ(env_of(master).at("MPI_HOST"), "m-mpiworker-0.m,m-mpiworker-1.m");
  ASSERT_NE(file_named(master, "mpiworker.host"), nullptr);
  EXPECT_EQ(file_named(master, "mpiworker.host")->content, "m-mpiworker-0.m\nm-mpiworker-1.m");
  EXPECT_NE(file_named(master, "id_rsa"), nullptr);
  EXPECT_TRUE(needs_ssh_keys(job));
  EXPECT_EQ(active_plugins(job), (std::vector<std::string>{"svc", "ssh", "mpi"}));
  EXPECT_EQ(env_of(output_for(job, 1, 0, nullptr, &keys)).count("MPI_HOST"), 0u);
}

const std::string kRayHead =
    "ray start --head --block --dashboard-host=0.0.0.0 --port=6379 --dashboard-port=8265 "
    "--ray-client-server-port=10001";

TEST(JobPlugins, RayStartsTheHeadOnItsPortsAndWorkersJoinHeadReplicaZero) {
  const auto job = job_with("rc", {{"head", 1}, {"worker", 2}}, {{"ray", {}}});
  const PluginOutput head = output_for(job, 0, 0);
  ASSERT_EQ(head.containers.size(), 1u);
  EXPECT_EQ(head.containers[0].container, "head");
  EXPECT_EQ(head.containers[0].command, (std::vector<std::string>{"sh", "-c", kRayHead}));
  EXPECT_EQ(
      head.containers[0].ports,
      (std::vector<PluginPort>{{"gcs", 6379}, {"dashboard", 8265}, {"client-server", 10001}}));
  const PluginOutput worker = output_for(job, 1, 1);
  ASSERT_EQ(worker.containers.size(), 1u);
  EXPECT_EQ(worker.containers[0],
            (ContainerChange{
                "worker", {"sh", "-c", "ray start --block --address=rc-head-0.rc:6379"}, {}}));
  EXPECT_TRUE(worker.env.size() > 0 && env_of(worker).at("VC_HEAD_HOSTS") == "rc-head-0.rc")
      << "svc comes with it";
  EXPECT_EQ(active_plugins(job), (std::vector<std::string>{"svc", "ray"}));
  EXPECT_FALSE(needs_ssh_keys(job));
}

TEST(JobPlugins, RayTakesTaskAndContainerNamesAndPorts) {
  const auto job = job_with(
      "rc", {{"driver", 1}, {"node", 2}, {"other", 1}},
      {{"ray",
        {"--head=driver", "--headContainer=main", "--worker", "node", "-workerContainer=ray",
         "--port=7000", "--dashboardPort=7001", "--clientPort=7002"}}});
  const ReplicaHosts hosts = {{"10.0.0.5"}, {"10.0.0.6", "10.0.0.7"}, {"10.0.0.8"}};
  const PluginOutput head = output_for(job, 0, 0, &hosts);
  ASSERT_EQ(head.containers.size(), 1u);
  EXPECT_EQ(head.containers[0].container, "main");
  EXPECT_EQ(head.containers[0].command.at(2),
            "ray start --head --block --dashboard-host=0.0.0.0 --port=7000 --dashboard-port=7001 "
            "--ray-client-server-port=7002");
  EXPECT_EQ(head.containers[0].ports,
            (std::vector<PluginPort>{{"gcs", 7000}, {"dashboard", 7001}, {"client-server", 7002}}));
  const PluginOutput worker = output_for(job, 1, 0, &hosts);
  ASSERT_EQ(worker.containers.size(), 1u);
  EXPECT_EQ(worker.containers[0].container, "ray");
  EXPECT_EQ(worker.containers[0].command.at(2), "ray start --block --address=10.0.0.5:7000")
      << "the head's host as the executor reaches it";
  EXPECT_TRUE(output_for(job, 2, 0, &hosts).containers.empty()) << "neither head nor worker";

  EXPECT_TRUE(plugin_sets_command(job, 0, "main"));
  EXPECT_TRUE(plugin_sets_command(job, 1, "ray"));
  EXPECT_FALSE(plugin_sets_command(job, 0, "head")) << "not the head's container";
  EXPECT_FALSE(plugin_sets_command(job, 2, "ray"));
}

TEST(JobPlugins, RayWorkersJoinTheHeadsVolcanoNameWhenItHasNoReplica) {
  const auto job = job_with("rc", {{"head", 0}, {"worker", 1}}, {{"ray", {}}});
  EXPECT_EQ(output_for(job, 1, 0).containers.at(0).command.at(2),
            "ray start --block --address=rc-head-0.rc:6379");
}

TEST(JobPlugins, RayWithoutItsHeadTaskIsRefusedWithVolcanosMessage) {
  const auto job = job_with("rc", {{"worker", 2}}, {{"ray", {}}});
  EXPECT_EQ(check_plugins(job), "spec.plugins.ray: job rc doesn't have head task head");
  EXPECT_EQ(check_plugins(job_with("rc", {{"worker", 2}}, {{"ray", {"--head=boss"}}})),
            "spec.plugins.ray: job rc doesn't have head task boss");
  EXPECT_EQ(check_plugins(job_with("rc", {{"boss", 1}}, {{"ray", {"--head=boss"}}})), "");
  EXPECT_THROW(output_for(job, 0, 0), std::invalid_argument);
}

TEST(JobPlugins, RayArgumentsAreCheckedAsGoFlags) {
  const auto refusal = [](std::vector<std::string> args) {
    return check_plugins(job_with("j", {{"head", 1}}, {{"ray", std::move(args)}}));
  };
  EXPECT_EQ(refusal({"--clientServerPort=1"}),
            "spec.plugins.ray: argument \"--clientServerPort=1\" is not an argument of the ray "
            "plugin; it takes --head, --headContainer, --worker, --workerContainer, --port, "
            "--dashboardPort, --clientPort");
  EXPECT_EQ(refusal({"--dashboardPort=0"}),
            "spec.plugins.ray: argument \"--dashboardPort=0\": \"0\" is not a port (1-65535)");
  EXPECT_EQ(refusal({"--head"}), "spec.plugins.ray: argument \"--head\" needs a value");
}

TEST(JobPlugins, ArgumentsArePlainGoFlags) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--master=a"}, {"-master=a"}, {"--master", "a", "-port", "99"}, {"--worker=b", "--"}}) {
    EXPECT_EQ(check_plugins(job_with("j", {{"a", 1}}, {{"pytorch", args}})), "") << args.front();
  }
  EXPECT_EQ(
      check_plugins(job_with(
          "j", {{"a", 1}}, {{"ssh", {"--no-root"}}, {"svc", {"--disable-network-policy=false"}}})),
      "");
}

TEST(JobPlugins, UnknownOrBadArgumentsAreRefusedNamingPluginAndArgument) {
  const auto refusal = [](const std::string& plugin, std::vector<std::string> args) {
    return check_plugins(job_with("j", {{"a", 1}}, {{plugin, std::move(args)}}));
  };
  EXPECT_EQ(refusal("pytorch", {"--masters=a"}),
            "spec.plugins.pytorch: argument \"--masters=a\" is not an argument of the pytorch "
            "plugin; it takes --master, --worker, --port");
  EXPECT_EQ(refusal("env", {"--x"}),
            "spec.plugins.env: argument \"--x\" is not an argument of the env plugin; it takes "
            "no arguments");
  EXPECT_EQ(refusal("tensorflow", {"--port=http"}),
            "spec.plugins.tensorflow: argument \"--port=http\": \"http\" is not a port (1-65535)");
  EXPECT_EQ(refusal("mpi", {"--port=70000"}),
            "spec.plugins.mpi: argument \"--port=70000\": \"70000\" is not a port (1-65535)");
  EXPECT_EQ(refusal("mpi", {"--master"}), "spec.plugins.mpi: argument \"--master\" needs a value");
  EXPECT_EQ(refusal("svc", {"--disable-network-policy=maybe"}),
            "spec.plugins.svc: argument \"--disable-network-policy=maybe\": \"maybe\" is not a "
            "boolean");
  EXPECT_EQ(refusal("mpi", {"master"}),
            "spec.plugins.mpi: argument \"master\" is not a flag; it takes --master, --worker, "
            "--port");
  EXPECT_NE(refusal("mpi", {"--", "--port=1"}).find("\"--port=1\" is not a flag"),
            std::string::npos);
  EXPECT_EQ(refusal("horovod", {}),
            "spec.plugins.horovod: unknown job plugin; one of env, mpi, pytorch, ray, ssh, svc, "
            "tensorflow");
}

TEST(JobPlugins, TheProcessExecutorRefusesBadArgumentsAtAdmission) {
  const support::TempDir work("gantry-plugins-");
  ProcessExecutor executor(work.path());
  auto job = job_with("j", {{"a", 1}}, {{"mpi", {"--hosts=x"}}});
  job.tasks[0].containers.push_back(protocol::ContainerSpec{"c", "", {"true"}, {}, {}, {}, {}});
  EXPECT_NE(executor.check(job).find("spec.plugins.mpi: argument \"--hosts=x\""),
            std::string::npos);
  job.plugins["mpi"] = {"--worker=a"};
  EXPECT_EQ(executor.check(job), "");
}

// Volcano's ray plugin gives the head's and workers' containers their
// command, so they need none of their own; any other container does.
TEST(JobPlugins, TheProcessExecutorTakesRaysCommandForTheContainersItNames) {
  const support::TempDir work("gantry-plugins-");
  ProcessExecutor executor(work.path());
  auto job = job_with("rc", {{"head", 1}, {"worker", 2}}, {{"ray", {}}});
  job.tasks[0].containers.push_back(protocol::ContainerSpec{"head", "", {}, {}, {}, {}, {}});
  job.tasks[1].containers.push_back(protocol::ContainerSpec{"worker", "", {}, {}, {}, {}, {}});
  EXPECT_EQ(executor.check(job), "");
  job.tasks[1].containers[0].name = "main";
  EXPECT_EQ(executor.check(job),
            "spec.tasks[1].template.spec.containers[0].command: the process executor needs a "
            "command");
}

// Real replicas: each checks the files and env its plugins gave it, on this
// machine's address; a mismatch fails the job.
TEST(JobPlugins, ProcessReplicasFindTheirPartsFilesAndLocalHosts) {
  const support::TempDir work("gantry-plugins-");
  ProcessExecutor executor(work.path());
  AgentCore core("test", testing::small_inventory(), executor);
  const std::string check_master =
      "test \"$(cat $GANTRY_VOLCANO_DIR/worker.host)\" = \"$(printf '127.0.0.1\\n127.0.0.1')\" && "
      "test \"$MPI_HOST\" = 127.0.0.1,127.0.0.1 && test -s $GANTRY_SSH_DIR/id_rsa && "
      "test \"$(stat -c %a $GANTRY_SSH_DIR/id_rsa)\" = 600 && "
      "cmp -s $GANTRY_SSH_DIR/id_rsa.pub $GANTRY_SSH_DIR/authorized_keys && "
      "grep -q 'HostName 127.0.0.1' $GANTRY_SSH_DIR/config";
  auto prepare =
      testing::make_prepare(7, "mpi-job",
                            {{.name = "master", .command = {"/bin/sh", "-c", check_master}},
                             {.name = "worker",
                              .replicas = 2,
                              .command = {"/bin/sh", "-c", "test -n \"$GANTRY_SSH_DIR\""}}});
  prepare.job.plugins["mpi"] = {};
  Outbox out;
  ASSERT_TRUE(testing::prepare_and_commit(core, prepare, 0, out));
  const auto deadline = testing::deadline_in(60s);
  while (core.find_run(7) != nullptr) {
    ASSERT_TRUE(testing::executor_turn(executor, core, out, 0, deadline));
  }
  const auto updates = testing::messages_of<protocol::StatusUpdate>(out);
  ASSERT_FALSE(updates.empty());
  EXPECT_EQ(updates.back().phase, protocol::phase::kCompleted) << updates.back().message;
  EXPECT_FALSE(std::filesystem::exists(work.path() / "mpi-job" / "plugins-7"))
      << "the part's files go with its last replica";
}

// Real replicas run ray's commands: a stand-in `ray` first on PATH writes
// the arguments each replica ran it with; workers join the head on this
// machine's address.
TEST(JobPlugins, ProcessReplicasRunRaysHeadAndWorkerCommands) {
  const support::TempDir work("gantry-plugins-");
  const std::filesystem::path bin = work.path() / "bin";
  std::filesystem::create_directories(bin);
  {
    std::ofstream ray(bin / "ray");
    ray << "#!/bin/sh\nprintf '%s\\n' \"$*\" > "
           "\"$RAY_ARGS_DIR/$GANTRY_TASK-$GANTRY_REPLICA_INDEX\"\n";
  }
  std::filesystem::permissions(bin / "ray", std::filesystem::perms::owner_all);
  ProcessExecutor executor(work.path() / "agent");
  AgentCore core("test", testing::small_inventory(), executor);
  auto prepare =
      testing::make_prepare(8, "rc", {{.name = "head"}, {.name = "worker", .replicas = 2}});
  prepare.job.plugins["ray"] = {};
  for (protocol::TaskSpec& task : prepare.job.tasks) {
    task.containers[0].env = {{"PATH", bin.string() + ":/usr/bin:/bin"},
                              {"RAY_ARGS_DIR", work.path().string()}};
  }
  Outbox out;
  ASSERT_TRUE(testing::prepare_and_commit(core, prepare, 0, out));
  const auto deadline = testing::deadline_in(60s);
  while (core.find_run(8) != nullptr) {
    ASSERT_TRUE(testing::executor_turn(executor, core, out, 0, deadline));
  }
  const auto updates = testing::messages_of<protocol::StatusUpdate>(out);
  ASSERT_FALSE(updates.empty());
  EXPECT_EQ(updates.back().phase, protocol::phase::kCompleted) << updates.back().message;
  const auto ran = [&](const std::string& replica) {
    std::ifstream file(work.path() / replica);
    return std::string(std::istreambuf_iterator<char>(file), {});
  };
  EXPECT_EQ(ran("head-0"), kRayHead.substr(4) + "\n");
  EXPECT_EQ(ran("worker-0"), "start --block --address=127.0.0.1:6379\n");
  EXPECT_EQ(ran("worker-1"), "start --block --address=127.0.0.1:6379\n");
}

}  // namespace
}  // namespace gantry::agents
