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


def fail_on_mpi_rank(failing_rank, exit_code):
    import os
    import sys
    import time

    if int(os.environ["OMPI_COMM_WORLD_RANK"]) == failing_rank:
        sys.exit(exit_code)
    time.sleep(120)  # mpirun stops the other ranks when one fails


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


def mpi_all_reduce_check(expected_world_size):
    """An MPI_Allreduce over every rank through Open MPI's own libmpi (ctypes: no mpi4py to build)."""
    import ctypes
    import ctypes.util
    import os

    mpi = ctypes.CDLL(ctypes.util.find_library("mpi") or "libmpi.so.40", mode=ctypes.RTLD_GLOBAL)

    def handle(symbol):  # Open MPI's MPI_COMM_WORLD, MPI_INT, MPI_SUM are addresses of global objects
        return ctypes.c_void_p(ctypes.addressof(ctypes.c_char.in_dll(mpi, symbol)))

    world, mpi_int, mpi_sum = handle("ompi_mpi_comm_world"), handle("ompi_mpi_int"), handle("ompi_mpi_op_sum")
    assert mpi.MPI_Init(None, None) == 0
    rank, size, total = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    mpi.MPI_Comm_rank(world, ctypes.byref(rank))
    mpi.MPI_Comm_size(world, ctypes.byref(size))
    assert mpi.MPI_Allreduce(ctypes.byref(ctypes.c_int(rank.value + 1)), ctypes.byref(total), 1, mpi_int, mpi_sum, world) == 0
    assert size.value == expected_world_size, f"world size {size.value}"
    assert total.value == size.value * (size.value + 1) // 2, f"sum {total.value}"
    os.write(1, f"mpi rank={rank.value} world={size.value} sum={total.value}\n".encode())
    mpi.MPI_Finalize()
