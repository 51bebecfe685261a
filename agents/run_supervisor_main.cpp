// gantry-run-supervisor: started by a process-executor agent, one per replica
// (agents/run_supervisor.hpp); its standard input is the agent's control
// socket, its output the replica's log.
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <stdexcept>

#include "agents/run_supervisor.hpp"

int main(int argc, char** argv) {
  using namespace gantry::agents;
  std::signal(SIGPIPE, SIG_IGN);  // an agent gone before the answer is no reason to die
  SupervisorOptions options;
  try {
    options = parse_supervisor_args(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& refusal) {
    std::fprintf(stderr, "gantry-run-supervisor: %s\n", refusal.what());
    return 2;
  }
  return run_supervisor(options, STDIN_FILENO);
}
