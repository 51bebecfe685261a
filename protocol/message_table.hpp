// THE list of wire messages: the one place a new message is declared (after its
// struct in protocol/messages.hpp). Everything else is derived from it: the
// MessageType enum and names, MessageTypeOf<T>, the list of message structs
// (protocol/message_types.hpp), the hub's inbound variant, which socket accepts
// what and the decoding (actors/inbound.*), the agent's decoding
// (agents/agent_loop.cpp), the CAF type ids (actors/actor_messages.hpp) and the
// protocol tests. Forgetting a handler for a new message the hub or an agent
// receives is a compile error there.
//
// X(Struct, numeric type, directions). The numbers are the wire contract: never
// renumber or reuse one (tests/protocol/wire_keys_test.cpp pins them).
#pragma once

#define GANTRY_WIRE_MESSAGES(X)                                                                  \
  /* agent <-> hub */                                                                            \
  X(Hello, 1, Direction::kAgentToHub)                                                            \
  X(Welcome, 2, Direction::kHubToAgent)                                                          \
  X(Heartbeat, 3, Direction::kAgentToHub | Direction::kHubToAgent) /* the hub echoes each one */ \
  X(UsageReport, 4, Direction::kAgentToHub)                                                      \
  /* 5 was protocol version 1's one-shot Dispatch: never reuse it */                             \
  X(Admit, 6, Direction::kAgentToHub)                                                            \
  X(Reject, 7, Direction::kAgentToHub)                                                           \
  X(StatusUpdate, 8, Direction::kAgentToHub)                                                     \
  X(Cancel, 9, Direction::kHubToAgent)                                                           \
  X(ErrorReply, 10, Direction::kAgentToHub | Direction::kHubToAgent | Direction::kHubToConsole)  \
  X(Prepare, 11, Direction::kHubToAgent)                                                         \
  X(Commit, 12, Direction::kHubToAgent)                                                          \
  X(Abort, 13, Direction::kHubToAgent)                                                           \
  /* node-role agent -> cluster-role agent */                                                    \
  X(NodeReport, 14, Direction::kNodeToCluster)                                                   \
  /* elastic jobs (docs/elastic.md) */                                                           \
  X(Resize, 15, Direction::kHubToAgent)                                                          \
  X(Resized, 16, Direction::kAgentToHub)                                                         \
  /* console <-> hub */                                                                          \
  X(SubmitJobRequest, 100, Direction::kConsoleToHub)                                             \
  X(SubmitJobReply, 101, Direction::kHubToConsole)                                               \
  X(ListRequest, 102, Direction::kConsoleToHub)                                                  \
  X(ListReply, 103, Direction::kHubToConsole)                                                    \
  X(DescribeRequest, 104, Direction::kConsoleToHub)                                              \
  X(DescribeReply, 105, Direction::kHubToConsole)                                                \
  X(CancelRequest, 106, Direction::kConsoleToHub)                                                \
  X(ApplyRequest, 107, Direction::kConsoleToHub)                                                 \
  X(DeleteRequest, 108, Direction::kConsoleToHub)                                                \
  X(AdminResult, 109, Direction::kHubToConsole)                                                  \
  X(ClusterActionRequest, 110, Direction::kConsoleToHub)                                         \
  /* gantryctl logs: asked of the hub, which asks the agent running the replica */               \
  X(LogsRequest, 111, Direction::kConsoleToHub | Direction::kHubToAgent)                         \
  X(LogsChunk, 112, Direction::kAgentToHub | Direction::kHubToConsole)                           \
  X(LogsStop, 113, Direction::kHubToAgent)                                                       \
  /* gantryctl web: a one-time login to the web view */                                          \
  X(WebLoginRequest, 114, Direction::kConsoleToHub)                                              \
  X(WebLoginReply, 115, Direction::kHubToConsole)                                                \
  /* many jobs in one round trip (gantryctl submit -f DIR, job arrays) */                        \
  X(SubmitJobsRequest, 116, Direction::kConsoleToHub)                                            \
  X(SubmitJobsReply, 117, Direction::kHubToConsole)
