"""The executable entry of the policy pack: the `kubeflow-trainer-policy` console script.

The Pulumi CLI launches a policy pack given as an executable file directly, with the engine's address
as its one argument (docs/policy.md says why the pack is not a directory). pip writes the console
script with the path of the environment's own Python, the one that has this library and pulumi-policy.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

USAGE = """\
kubeflow-trainer-policy: the pulumi-kubeflow-trainer policy pack. Pulumi runs it; you name it:

  pulumi preview --policy-pack "$(command -v kubeflow-trainer-policy)" [--policy-pack-config policy.json]

Policies, config and enforcement levels: docs/policy.md.
"""
MISSING = "kubeflow-trainer-policy: pulumi-policy is not installed: pip install 'pulumi-kubeflow-trainer[policy]'"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(USAGE, end="")
        return 0
    try:
        import pulumi_policy  # noqa: F401
    except ImportError:
        print(MISSING, file=sys.stderr)
        return 1
    from .pack import serve

    serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
