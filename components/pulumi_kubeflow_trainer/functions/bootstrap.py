# Runs a function shipped by pulumi-kubeflow-trainer: python -c <this file> <sha256> <base64 JSON payload>.
# This whole file is the `-c` program, so it stays small, stdlib-only and Python 3.7-compatible.
import atexit
import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import types


def decode(digest, encoded):
    raw = base64.b64decode(encoded.encode("ascii"), validate=True)
    if hashlib.sha256(raw).hexdigest() != digest:
        sys.exit("kubeflow-trainer: the function payload does not match its sha256 %s" % digest)
    return json.loads(raw.decode("utf-8"))


def write(root, relative, text):
    path = os.path.join(root, *relative.split("/"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)
    return path


def install(packages, index_urls):
    # torchrun starts this program once per process: the first one on a node installs, the others wait.
    import fcntl
    import site

    key = hashlib.sha256(json.dumps([packages, index_urls]).encode()).hexdigest()[:16]
    stamp = os.path.join(tempfile.gettempdir(), "kubeflow-trainer-pip-" + key)
    with open(stamp + ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.exists(stamp + ".done"):
            pip(packages, index_urls)
            open(stamp + ".done", "w").close()
    user_site = site.getusersitepackages()
    if os.path.isdir(user_site) and user_site not in sys.path:
        site.addsitedir(user_site)


def pip(packages, index_urls):
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-warn-script-location", "--disable-pip-version-check"]
    for index, url in enumerate(index_urls):
        command += ["--index-url" if index == 0 else "--extra-index-url", url]
    env = dict(os.environ, PIP_BREAK_SYSTEM_PACKAGES="1")
    if subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode != 0:
        subprocess.run([sys.executable, "-m", "ensurepip", "--upgrade"], capture_output=True)
    # Into the environment when it is writable, else into the user's site-packages (non-root images).
    for extra in ([], ["--user"]):
        result = subprocess.run(command + extra + packages, env=env, capture_output=True, text=True)
        if result.returncode == 0:
            return
    sys.stderr.write(result.stdout + result.stderr)
    sys.exit("kubeflow-trainer: pip install %s failed" % " ".join(packages))


def run(payload):
    root = tempfile.mkdtemp(prefix="kubeflow-trainer-function-")
    atexit.register(shutil.rmtree, root, True)
    for module in payload["modules"]:
        write(os.path.join(root, "modules"), module["path"], module["source"])
        # Parents become regular packages, so the shipped copy wins over a same-named one on sys.path.
        parts = module["path"].split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            open(os.path.join(root, "modules", *parts[:depth], "__init__.py"), "a").close()
    sys.path.insert(0, os.path.join(root, "modules"))
    path = write(os.path.join(root, "main"), payload["file"], payload["source"])
    # The function's file becomes __main__, as if run as a script: pickling by reference and
    # multiprocessing's spawn (which re-imports __main__.__file__, defining but not calling) work.
    script = types.ModuleType("__main__")
    script.__file__ = path
    sys.modules["__main__"] = script
    sys.argv = [path]
    exec(compile(payload["source"], path, "exec"), script.__dict__)
    script.__dict__[payload["function"]](**(payload["args"] or {}))


def main(argv):
    payload = decode(argv[1], argv[2])
    if payload["format"] != 1:
        sys.exit("kubeflow-trainer: payload format %s needs a newer bootstrap" % payload["format"])
    if payload["packages"]:
        install(payload["packages"], payload["indexUrls"])
    run(payload)


if __name__ == "__main__":
    main(sys.argv)
