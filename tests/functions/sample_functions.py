"""Functions the tests ship to trainer nodes; they live in a file because only file source is shipped."""


def all_reduce_check(expected_world_size, expected_nodes):
    import os

    import torch
    import torch.distributed as dist

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    total = torch.tensor([float(rank + 1)])
    dist.all_reduce(total)
    assert world == expected_world_size, f"world size {world}"
    assert int(os.environ["GROUP_RANK"]) < expected_nodes
    assert total.item() == world * (world + 1) / 2, f"sum {total.item()}"
    # One write below PIPE_BUF: the node's ranks share one pipe, and print's two writes could interleave.
    os.write(1, f"rank={rank} world={world} node={os.environ['GROUP_RANK']} sum={total.item():g}\n".encode())
    dist.destroy_process_group()


def fail_on_rank(failing_rank, exit_code):
    import os
    import sys

    import torch.distributed as dist

    if int(os.environ["RANK"]) == failing_rank:
        sys.exit(exit_code)  # before the rendezvous, so the other ranks wait until they are stopped
    dist.init_process_group("gloo")
    dist.barrier()


def fail_on_process(failing_process, exit_code):
    import os
    import sys
    import time

    if int(os.environ["JAX_PROCESS_ID"]) == failing_process:
        sys.exit(exit_code)
    time.sleep(120)  # stopped by run_local when the other node fails


def report_mpi_rank():
    import os

    rank, size = os.environ["OMPI_COMM_WORLD_RANK"], os.environ["OMPI_COMM_WORLD_SIZE"]
    # One write: mpirun forwards each write of each rank as it comes, so print's two could interleave.
    os.write(1, f"mpi rank {rank} of {size}\n".encode())


def echo_what_arrived(out_dir, text):
    """Arrives byte for byte: $HOME ${HOME} $(HOSTNAME) $(JAX_PROCESS_ID) $$ `echo hi` $(echo hi) "double" 'single' \\n \\
EOF
EOM
'TRAINING_SCRIPT_EOF'
Grüße, naïve café, 日本語, 🚀 — done
"""
    import json
    import pathlib
    import sys

    out = pathlib.Path(out_dir)
    out.joinpath("source.py").write_bytes(pathlib.Path(sys.modules["__main__"].__file__).read_bytes())
    arrived = {"out_dir": out_dir, "text": text}
    out.joinpath("args.json").write_text(json.dumps(arrived, ensure_ascii=False), encoding="utf-8")


def use_installed_package():
    import tinypkg

    print(f"tinypkg {tinypkg.VALUE}")


def greet(name, punctuation="!"):
    from tests.functions.sample_helpers import greeting

    print(greeting(name) + punctuation)
