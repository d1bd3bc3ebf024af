"""The local cluster behind `tools/cluster` (the launcher; usage in cli.py and tools/cluster.md).

    cli.py            the commands: up (up.py), down, status, env, kubectl
    up.py             configure, start in order, CRDs, nodes, settle; stop_all on failure
    components/       one module per process, in START_ORDER (components/__init__.py): etcd,
                      apiserver, controller_manager, scheduler, kwok, jobset; base.py says what one is
    files/            the static YAML: kwok.yaml (copied as is), and the templates (string.Template,
                      ${...} where a port, path or CA goes) of the scheduler, JobSet and webhook
                      configurations and the kubeconfig; the JobSet the webhooks are probed with
    layout.py         the cluster dir;  network.py  loopback ports;  pki.py  openssl CAs and certs
    kubeconfig.py     DIR/kubeconfig;  crds.py  the reference's CRDs;  nodes.py  kwok nodes, StorageClass
    processes.py      start / stop / stop_all by pid file, wait_for;  probes.py  HTTP health checks
    kubectl.py        the built kubectl;  binaries.py  the bin dir;  context.py  what components see

Standard library only (and `openssl`): tools/cluster runs with the system python3.
"""
