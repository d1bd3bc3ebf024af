"""A Pulumi CrossGuard policy pack for training stacks (docs/policy.md).

It judges what a stack deploys: the JobSets TrainJob components render (default mode), TrainJob
objects (controller mode) and JobSets other code registers. The judging functions (`rules`) take
plain manifests; only `pack` imports `pulumi_policy` (the `policy` extra), and nothing else of the
package imports this subpackage. Run it with `pulumi preview --policy-pack "$(command -v
kubeflow-trainer-policy)"`: the console script is the executable entry (`__main__`).
"""
