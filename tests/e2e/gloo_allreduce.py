"""A replica of the gang end-to-end test: joins a gloo process group through
the PyTorch-style environment the agent sets, all-reduces rank + 1, prints the sum."""

import argparse
import datetime
import os

import torch
import torch.distributed as dist

parser = argparse.ArgumentParser()
parser.add_argument("--world-size", type=int, default=None)
parser.add_argument("--timeout-s", type=int, default=120)
args = parser.parse_args()

rank = int(os.environ["RANK"])
world = args.world_size or int(os.environ["WORLD_SIZE"])
dist.init_process_group("gloo", init_method=f"tcp://{os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}",
                        rank=rank, world_size=world, timeout=datetime.timedelta(seconds=args.timeout_s))
value = torch.tensor([float(rank + 1)])
dist.all_reduce(value)
print(f"rank {rank} allreduce sum {value.item()} world {world}", flush=True)
dist.destroy_process_group()
