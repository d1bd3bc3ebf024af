"""Which tests share a pytest-xdist worker, and the scheduler that keeps them together.

tools/test runs pytest on several workers (`-n N --dist loadgroup`). Most tests are units of their own,
handed to whichever worker is free (as `--dist load` does); the tests of a group below go to one
worker together and run there in order. pytest-xdist 3.8's own loadgroup reads `xdist_group` marks
but no longer groups anything under pytest 9.2 (it renames node ids, which pytest 9.2 ignores:
pytest-dev/pytest-xdist#1386), so tests/conftest.py installs `GroupScheduling` for `--dist loadgroup`,
which takes the groups from this table, by node id.
"""

from __future__ import annotations

from typing import Any

SERIAL_GROUPS = {
    # A local control plane per worker (tests/cluster/conftest.py: `cluster`, `controller_cluster`),
    # shared by the tests of a group, which make cluster-wide objects (nodes, queues) that would
    # disturb one another. Three groups of about equal time (mostly waiting on controllers, little
    # CPU), so that no one worker holds up the end of the run. The first matching prefix wins.
    "tests/cluster/test_controller_": "cluster-controller",
    "tests/cluster/test_gang_scheduling.py": "cluster-1",
    "tests/cluster/test_kueue.py": "cluster-1",
    "tests/cluster/test_cluster.py": "cluster-1",
    "tests/cluster/test_stack_lifecycle.py": "cluster-1",
    "tests/cluster/": "cluster-2",
    # run_local keeps a JobSet's ports (torch's 29400) where they are free when it starts: two runs at
    # once would both take them.
    "tests/local/": "local",
    # mypy --strict with one cache directory (~/.cache/pulumi-kubeflow-trainer/mypy-readme).
    "tests/test_documented_types.py": "mypy-readme",
    # pip builds the checkout in its source tree (setuptools' build/, *.egg-info): the wheel of
    # tests/test_packaging.py and the README quickstart's `pip install "$checkout"`.
    "tests/test_packaging.py": "builds-the-checkout",
    "tests/engine/test_quickstart.py": "builds-the-checkout",
}


def serial_group(nodeid: str) -> str | None:
    """The group of a test, None for a test that can run beside any other."""
    return next((group for prefix, group in SERIAL_GROUPS.items() if nodeid.startswith(prefix)), None)


def make_scheduler(config: Any, log: Any) -> Any:
    """A LoadScopeScheduling whose scopes are the groups above, and each other test on its own. The
    work goes out in collection order (the cluster and engine tests, the longest, come early), not
    the default largest-scope-first order."""
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return serial_group(nodeid) or nodeid

    config.option.loadscopereorder = False
    return GroupScheduling(config, log)
