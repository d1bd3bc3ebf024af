"""A training script as a YAML TrainJob would name it: `mpirun python mpi_all_reduce.py --expected-world-size 4`.

Each rank all-reduces through Open MPI's libmpi; the check is the one the function tests ship
(tests/functions/sample_functions.py), loaded from its file so both stay one.
"""

import argparse
import importlib.util
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[2] / "functions" / "sample_functions.py"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--expected-world-size", type=int, required=True)
    args = parser.parse_args()
    spec = importlib.util.spec_from_file_location("sample_functions", SAMPLES)
    assert spec is not None and spec.loader is not None
    samples = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(samples)
    samples.mpi_all_reduce_check(args.expected_world_size)


if __name__ == "__main__":
    main()
