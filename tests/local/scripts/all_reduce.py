"""A training script as a YAML TrainJob would name it: `torchrun all_reduce.py --expected-world-size 4`."""

import argparse
import os

import torch
import torch.distributed as dist


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--expected-world-size", type=int, required=True)
    args = parser.parse_args()
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    total = torch.tensor([float(rank + 1)])
    dist.all_reduce(total)
    assert world == args.expected_world_size, f"world size {world}"
    assert total.item() == world * (world + 1) / 2, f"sum {total.item()}"
    # One write below PIPE_BUF: the node's ranks share one pipe, and print's two writes could interleave.
    os.write(1, f"rank={rank} world={world} node={os.environ['GROUP_RANK']} sum={total.item():g}\n".encode())
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
