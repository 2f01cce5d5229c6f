"""Record the error texts of bench.agent by running real commands on this machine.

    python -m bench.record_agent_errors [--out bench/data/agent_errors.json]

Each incident kind runs its failing command three times, in fresh temporary folders,
on other ports and with other ids, and keeps what the tool printed (stdout and stderr, as a
terminal shows them) and its exit code. The runs differ in their volatile parts only (paths,
ports, process ids, hashes, times): what an agent meets when an error comes back. Nothing
here is written by hand but the commands. It needs Python, git, gcc, Go, rustc, javac, node,
npm (with its registry), make, curl and the Docker client; a kind whose tool is missing is
left out with a message.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

DEFAULT_OUT = Path(__file__).parent / "data" / "agent_errors.json"
PYTHON = sys.executable
_ENV = {**os.environ, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "NO_COLOR": "1", "GIT_TERMINAL_PROMPT": "0",
        "PYTHONDONTWRITEBYTECODE": "1", "npm_config_update_notifier": "false"}  # fmt: skip

Run = tuple[str, int]  # what was printed, exit code


def sh(command: str, cwd: Path, timeout: float = 120) -> Run:
    """A shell command's output (stderr after stdout, as a terminal interleaves most tools'
    short output) and its exit code."""
    done = subprocess.run(command, shell=True, cwd=cwd, env=_ENV, capture_output=True, text=True,
                          timeout=timeout, check=False)  # fmt: skip
    return (done.stdout + done.stderr).strip(), done.returncode


def py(code: str, cwd: Path, name: str = "job.py") -> Run:
    """Python running a script file of `code` (a traceback names the file, as a job's does)."""
    (cwd / name).write_text(code)
    return sh(f"{PYTHON} {name}", cwd)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class _Handler(BaseHTTPRequestHandler):
    """A local API that answers each route with the status and body the kind asks for."""

    routes: dict[str, tuple[int, str, dict[str, str]]] = {}

    def do_GET(self) -> None:  # noqa: N802 (the http.server API)
        path = self.path.split("?")[0]
        status, body, headers = next(
            (answer for prefix, answer in self.routes.items() if path.startswith(prefix)),
            (404, '{"error": "not found"}', {}),
        )
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body.encode())

    do_POST = do_GET  # noqa: N815

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@contextmanager
def api(routes: dict[str, tuple[int, str, dict[str, str]]]) -> Iterator[int]:
    handler = type("Routes", (_Handler,), {"routes": routes})
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


# -- the kinds: each takes a fresh folder and a variant number, runs the failing command -----

def module_missing(d: Path, v: int) -> Run:
    return py("import json\nimport sys\n\nfrom ruamel_yaml_clib_missing import load\n\nprint(load(sys.argv))\n",
              d, f"etl_{v}_loader.py")


def pip_no_version(d: Path, v: int) -> Run:
    (d / "wheels").mkdir()
    return sh(f"{PYTHON} -m pip install --no-index --find-links ./wheels 'pydantic-settings=={v + 9}.0.{v}'", d)


def git_non_fast_forward(d: Path, v: int) -> Run:
    setup = (
        "git init -q --bare -b main origin.git && git clone -q origin.git a 2>/dev/null && git clone -q origin.git b 2>/dev/null"
        " && cd a && git -c user.email=a@x -c user.name=a commit -q --allow-empty -m one && git push -q origin main"
        " && cd ../b && git -c user.email=b@x -c user.name=b commit -q --allow-empty -m two"
    )
    sh(setup, d)
    return sh("git push origin main", d / "b")


def git_merge_conflict(d: Path, v: int) -> Run:
    setup = (
        "git init -q -b main r && cd r && printf 'timeout = 30\\n' > settings.ini && git add . "
        "&& git -c user.email=a@x -c user.name=a commit -q -m base && git checkout -q -b feature "
        f"&& printf 'timeout = {60 + v}\\n' > settings.ini && git -c user.email=a@x -c user.name=a commit -qam feat "
        "&& git checkout -q main && printf 'timeout = 45\\n' > settings.ini "
        "&& git -c user.email=a@x -c user.name=a commit -qam hotfix"
    )
    sh(setup, d)
    return sh("git -c user.email=a@x -c user.name=a merge feature", d / "r")


def git_not_a_repo(d: Path, v: int) -> Run:
    (d / f"release-{v}").mkdir()
    return sh("git describe --tags", d / f"release-{v}")


def port_in_use(d: Path, v: int) -> Run:
    port = free_port()
    holder = socket.socket()
    holder.bind(("127.0.0.1", port))
    holder.listen()
    try:
        return py(f"import socket\ns = socket.socket()\ns.bind(('127.0.0.1', {port}))\ns.listen()\n", d, "serve.py")
    finally:
        holder.close()


def sqlite_locked(d: Path, v: int) -> Run:
    db = d / f"jobs_{v}.db"
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("CREATE TABLE jobs (id INTEGER PRIMARY KEY, state TEXT)")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        return py(f"import sqlite3\nc = sqlite3.connect('{db.name}', timeout=0.1)\n"
                  "c.execute(\"UPDATE jobs SET state = 'done' WHERE id = 1\")\n", d, "worker.py")  # fmt: skip
    finally:
        holder.rollback()
        holder.close()


def json_decode(d: Path, v: int) -> Run:
    (d / "response.json").write_text("" if v == 0 else "\n")
    return py("import json\n\nwith open('response.json') as f:\n    data = json.load(f)\nprint(data['items'])\n",
              d, "parse_feed.py")


def not_executable(d: Path, v: int) -> Run:
    (d / "deploy.sh").write_text("#!/bin/sh\necho deploying\n")
    os.chmod(d / "deploy.sh", 0o644)
    return sh("./deploy.sh --env staging", d)


def pytest_failure(d: Path, v: int) -> Run:
    (d / "test_invoice.py").write_text(
        "def total(items):\n    return sum(i['price'] for i in items)\n\n\n"
        f"def test_total_with_discount():\n    assert total([{{'price': 10}}, {{'price': {5 + v}}}]) == 13\n"
    )
    return sh(f"{PYTHON} -m pytest -q -p no:cacheprovider test_invoice.py", d)


def http_404(d: Path, v: int) -> Run:
    with api({"/api/v2/": (200, "{}", {})}) as port:
        return sh(f"curl -sS --fail-with-body http://127.0.0.1:{port}/api/v1/customers/{4410 + v * 17}", d)


def http_401(d: Path, v: int) -> Run:
    body = '{"error": "invalid_token", "error_description": "The access token expired"}'
    with api({"/v1/charges": (401, body, {"WWW-Authenticate": "Bearer"})}) as port:
        return py(
            "import urllib.request\n"
            f"req = urllib.request.Request('http://127.0.0.1:{port}/v1/charges?limit={10 + v}', "
            "headers={'Authorization': 'Bearer tok_%s'})\n" % ("a1b2c3d4e5f6" if v == 0 else "9f8e7d6c5b4a")
            + "urllib.request.urlopen(req)\n", d, "sync_charges.py")  # fmt: skip


def http_403(d: Path, v: int) -> Run:
    body = '{"message": "Resource not accessible by integration", "documentation_url": "https://docs.example.com/rest"}'
    with api({"/repos/": (403, body, {})}) as port:
        return sh(f"curl -sS --fail-with-body -X POST http://127.0.0.1:{port}/repos/acme/web-{v}/releases", d)


def http_429(d: Path, v: int) -> Run:
    body = '{"type": "rate_limit_error", "message": "Rate limit exceeded: 100 requests per minute"}'
    with api({"/v1/embeddings": (429, body, {"Retry-After": str(20 + v)})}) as port:
        return py(
            "import requests\n"
            f"r = requests.post('http://127.0.0.1:{port}/v1/embeddings', json={{'input': ['batch {v}']}}, timeout=5)\n"
            "r.raise_for_status()\n", d, "embed_batch.py")  # fmt: skip


def http_503_search(d: Path, v: int) -> Run:
    body = '{"error": "search index is still warming up, shards 3/12 ready"}'
    with api({"/search": (503, body, {})}) as port:
        return sh(f"curl -sS --fail-with-body 'http://127.0.0.1:{port}/search?q=invoice+{v}'", d)


def http_503_billing(d: Path, v: int) -> Run:
    body = '{"error": "connection pool exhausted: 20 of 20 connections in use"}'
    with api({"/billing": (503, body, {})}) as port:
        return sh(f"curl -sS --fail-with-body http://127.0.0.1:{port}/billing/invoices/{880 + v}", d)


def http_500(d: Path, v: int) -> Run:
    with api({"/graphql": (500, '{"errors": [{"message": "Internal server error"}]}', {})}) as port:
        return py(
            "import requests\n"
            f"r = requests.post('http://127.0.0.1:{port}/graphql', json={{'query': '{{ orders(first: {50 + v}) {{ id }} }}'}})\n"
            "r.raise_for_status()\n", d, "orders_report.py")  # fmt: skip


def connection_refused(d: Path, v: int) -> Run:
    return sh(f"curl -sS http://127.0.0.1:{free_port()}/healthz", d)


def postgres_refused(d: Path, v: int) -> Run:
    return sh(f"psql -h 127.0.0.1 -p {free_port()} -U app -d orders_{v} -c 'select 1'", d)


def file_missing(d: Path, v: int) -> Run:
    return py("import yaml\n\nwith open('config/settings.yaml') as f:\n    settings = yaml.safe_load(f)\n",
              d, f"bootstrap_{v}.py")


def env_missing(d: Path, v: int) -> Run:
    return py("import os\n\nDATABASE_URL = os.environ['DATABASE_URL']\nprint(DATABASE_URL)\n", d, "migrate.py")


def yaml_invalid(d: Path, v: int) -> Run:
    (d / "pipeline.yml").write_text(f"stages:\n  - build\n  - test\n deploy:\n  image: node:{18 + v}\n")
    return py("import yaml\n\nwith open('pipeline.yml') as f:\n    yaml.safe_load(f)\n", d, "lint_ci.py")


def unicode_decode(d: Path, v: int) -> Run:
    (d / f"export_{v}.csv").write_bytes("name;city\nJosé;Málaga\n".encode("latin-1"))
    return py(f"with open('export_{v}.csv', encoding='utf-8') as f:\n    rows = f.read().splitlines()\n", d, "import_csv.py")


def subprocess_timeout(d: Path, v: int) -> Run:
    return py(f"import subprocess\nsubprocess.run(['sleep', '5'], timeout={0.5 + v * 0.25})\n", d, "warm_cache.py")


def key_error_config(d: Path, v: int) -> Run:
    return py("config = {'host': 'db', 'port': 5432}\n\n\ndef connect(cfg):\n    return cfg['password']\n\n\nconnect(config)\n",
              d, f"worker_{v}.py")


def type_error_none(d: Path, v: int) -> Run:
    return py("def fetch_user(uid):\n    return None\n\n\nuser = fetch_user(" + str(7 + v) + ")\nprint(user['email'])\n",
              d, "notify.py")


def node_module_missing(d: Path, v: int) -> Run:
    (d / "server.js").write_text("const express = require('express');\nexpress().listen(3000);\n")
    return sh("node server.js", d)


def node_type_error(d: Path, v: int) -> Run:
    (d / "render.js").write_text("const data = {};\nconsole.log(data.items.map((x) => x.id));\n")
    return sh("node render.js", d)


def npm_not_found(d: Path, v: int) -> Run:
    return sh(f"npm install --no-audit --no-fund left-pad-hindsight-missing-{v}", d, timeout=180)


def gcc_undeclared(d: Path, v: int) -> Run:
    (d / "checksum.c").write_text(f"#include <stdio.h>\nint main(void) {{\n  printf(\"%d\\n\", crc_{v});\n  return 0;\n}}\n")
    return sh("gcc -Wall -o checksum checksum.c", d)


def go_undefined(d: Path, v: int) -> Run:
    (d / "go.mod").write_text("module example.com/ingest\n\ngo 1.22\n")
    (d / "main.go").write_text("package main\n\nfunc main() {\n\tparseBatch()\n}\n")
    return sh("go build ./...", d)


def rust_unresolved(d: Path, v: int) -> Run:
    (d / "main.rs").write_text("fn main() {\n    let total = compute_total(3);\n    println!(\"{}\", total);\n}\n")
    return sh("rustc --edition 2021 main.rs", d)


def java_symbol(d: Path, v: int) -> Run:
    (d / "Report.java").write_text("public class Report {\n  public static void main(String[] a) {\n"
                                   "    System.out.println(Totals.sum(a.length));\n  }\n}\n")  # fmt: skip
    return sh("javac Report.java", d)


def make_no_rule(d: Path, v: int) -> Run:
    (d / "Makefile").write_text("test:\n\t@echo ok\n")
    return sh("make build", d)


def kubectl_no_cluster(d: Path, v: int) -> Run:
    return sh(f"kubectl rollout status deployment/web-{v}", d)


def docker_no_dockerfile(d: Path, v: int) -> Run:
    return sh(f"docker build -t registry.local/web:{v + 41} .", d)


def tar_missing(d: Path, v: int) -> Run:
    return sh(f"tar -xzf backup-2026-11-{10 + v}.tar.gz -C restore", d)


def memory_error(d: Path, v: int) -> Run:
    return sh(f"ulimit -v 400000; {PYTHON} -c \"rows = bytearray({2 + v} * 1024 ** 3)\"", d)


# -- the test split: kinds added after the signature rules were written, not read while building them

def zero_division(d: Path, v: int) -> Run:
    return py("rows = []\nrate = sum(r['ok'] for r in rows) / len(rows)\nprint(rate)\n", d, f"success_rate_{v}.py")


def attribute_error(d: Path, v: int) -> Run:
    return py("import json\n\nconfig = json.loads('{\"hosts\": []}')\nfor h in config.hosts:\n    print(h)\n", d, "inventory.py")


def import_name(d: Path, v: int) -> Run:
    return py("from collections import OrderedSet\n", d, f"dedupe_{v}.py")


def recursion(d: Path, v: int) -> Run:
    return py("def walk(node):\n    return walk(node)\n\n\nwalk({'id': " + str(v) + "})\n", d, "tree.py")


def http_502(d: Path, v: int) -> Run:
    with api({"/api/checkout": (502, '{"error": "upstream payments-gateway closed the connection"}', {})}) as port:
        return sh(f"curl -sS --fail-with-body -X POST http://127.0.0.1:{port}/api/checkout/{9000 + v}", d)


def http_400(d: Path, v: int) -> Run:
    body = '{"message": "invalid date format for since, expected YYYY-MM-DD"}'
    with api({"/v2/events": (400, body, {})}) as port:
        return py("import requests\n"
                  f"r = requests.get('http://127.0.0.1:{port}/v2/events', params={{'since': '11/0{v + 1}/2026'}})\n"
                  "r.raise_for_status()\n", d, "export_events.py")  # fmt: skip


def http_409(d: Path, v: int) -> Run:
    with api({"/v1/buckets": (409, '{"error": "bucket name already taken"}', {})}) as port:
        return sh(f"curl -sS --fail-with-body -X PUT http://127.0.0.1:{port}/v1/buckets/assets-{v}", d)


def git_checkout_overwrite(d: Path, v: int) -> Run:
    setup = ("git init -q -b main r && cd r && echo a > app.cfg && git add . && git -c user.email=a@x -c user.name=a "
             "commit -qm one && git checkout -qb hotfix && echo b > app.cfg && git -c user.email=a@x -c user.name=a "
             f"commit -qam two && git checkout -q main && echo local-{v} > app.cfg")  # fmt: skip
    sh(setup, d)
    return sh("git checkout hotfix", d / "r")


def git_no_remote(d: Path, v: int) -> Run:
    sh("git init -q -b main r", d)
    return sh("git fetch upstream", d / "r")


def dns_failure(d: Path, v: int) -> Run:
    return sh(f"curl -sS https://api-{v}.payments.invalid/v1/ping", d)


def node_syntax(d: Path, v: int) -> Run:
    (d / "config.js").write_text("module.exports = {\n  port: 3000,\n  host: 'localhost'\n  debug: true\n};\n")
    return sh("node -e \"require('./config.js')\"", d)


def python_syntax(d: Path, v: int) -> Run:
    return py("def total(xs)\n    return sum(xs)\n", d, f"totals_{v}.py")


def sqlite_no_table(d: Path, v: int) -> Run:
    return py(f"import sqlite3\nc = sqlite3.connect('app_{v}.db')\nc.execute('select * from users')\n", d, "report.py")


def gcc_missing_header(d: Path, v: int) -> Run:
    (d / "main.c").write_text("#include <zstd.h>\nint main(void) { return 0; }\n")
    return sh("gcc -c main.c", d)


def make_separator(d: Path, v: int) -> Run:
    (d / "Makefile").write_text("build:\n    echo building\n")
    return sh("make build", d)


def json_extra_data(d: Path, v: int) -> Run:
    (d / "events.json").write_text('{"id": 1}\n{"id": 2}\n')
    return py("import json\n\nwith open('events.json') as f:\n    events = json.load(f)\n", d, "load_events.py")


def ln_exists(d: Path, v: int) -> Run:
    (d / "current").write_text("")
    return sh(f"ln -s releases/v{v + 7} current", d)


def go_unused_import(d: Path, v: int) -> Run:
    (d / "go.mod").write_text("module example.com/sync\n\ngo 1.22\n")
    (d / "main.go").write_text('package main\n\nimport (\n\t"fmt"\n\t"os"\n)\n\nfunc main() {\n\tfmt.Println("sync")\n}\n')
    return sh("go build ./...", d)


def node_eaddrinuse(d: Path, v: int) -> Run:
    port = free_port()
    holder = socket.socket()
    holder.bind(("0.0.0.0", port))
    holder.listen()
    try:
        (d / "api.js").write_text(f"require('http').createServer(() => {{}}).listen({port});\n")
        return sh("node api.js", d)
    finally:
        holder.close()


KINDS: dict[str, tuple[str, str, Callable[[Path, int], Run]]] = {
    # id: (tool, the command as the agent ran it, runner)
    "module_missing": ("python", "python etl_loader.py", module_missing),
    "pip_no_version": ("pip", "pip install pydantic-settings==9.0.0", pip_no_version),
    "git_non_fast_forward": ("git", "git push origin main", git_non_fast_forward),
    "git_merge_conflict": ("git", "git merge feature", git_merge_conflict),
    "git_not_a_repo": ("git", "git describe --tags", git_not_a_repo),
    "port_in_use": ("python", "python serve.py", port_in_use),
    "sqlite_locked": ("python", "python worker.py", sqlite_locked),
    "json_decode": ("python", "python parse_feed.py", json_decode),
    "not_executable": ("shell", "./deploy.sh --env staging", not_executable),
    "pytest_failure": ("pytest", "pytest -q test_invoice.py", pytest_failure),
    "http_404": ("curl", "curl /api/v1/customers/<id>", http_404),
    "http_401": ("python", "python sync_charges.py", http_401),
    "http_403": ("curl", "curl -X POST /repos/acme/web/releases", http_403),
    "http_429": ("python", "python embed_batch.py", http_429),
    "http_503_search": ("curl", "curl /search?q=invoice", http_503_search),
    "http_503_billing": ("curl", "curl /billing/invoices/<id>", http_503_billing),
    "http_500": ("python", "python orders_report.py", http_500),
    "connection_refused": ("curl", "curl http://127.0.0.1/healthz", connection_refused),
    "postgres_refused": ("psql", "psql -h 127.0.0.1 -U app -c 'select 1'", postgres_refused),
    "file_missing": ("python", "python bootstrap.py", file_missing),
    "env_missing": ("python", "python migrate.py", env_missing),
    "yaml_invalid": ("python", "python lint_ci.py", yaml_invalid),
    "unicode_decode": ("python", "python import_csv.py", unicode_decode),
    "subprocess_timeout": ("python", "python warm_cache.py", subprocess_timeout),
    "key_error_config": ("python", "python worker.py", key_error_config),
    "type_error_none": ("python", "python notify.py", type_error_none),
    "node_module_missing": ("node", "node server.js", node_module_missing),
    "node_type_error": ("node", "node render.js", node_type_error),
    "npm_not_found": ("npm", "npm install left-pad-hindsight-missing", npm_not_found),
    "gcc_undeclared": ("gcc", "gcc -Wall -o checksum checksum.c", gcc_undeclared),
    "go_undefined": ("go", "go build ./...", go_undefined),
    "rust_unresolved": ("rustc", "rustc main.rs", rust_unresolved),
    "java_symbol": ("javac", "javac Report.java", java_symbol),
    "make_no_rule": ("make", "make build", make_no_rule),
    "kubectl_no_cluster": ("kubectl", "kubectl rollout status deployment/web", kubectl_no_cluster),
    "docker_no_dockerfile": ("docker", "docker build -t registry.local/web .", docker_no_dockerfile),
    "tar_missing": ("tar", "tar -xzf backup.tar.gz -C restore", tar_missing),
    "memory_error": ("python", "python -c 'rows = bytearray(...)'", memory_error),
}
TEST_KINDS: dict[str, tuple[str, str, Callable[[Path, int], Run]]] = {
    "zero_division": ("python", "python success_rate.py", zero_division),
    "attribute_error": ("python", "python inventory.py", attribute_error),
    "import_name": ("python", "python dedupe.py", import_name),
    "recursion": ("python", "python tree.py", recursion),
    "http_502": ("curl", "curl -X POST /api/checkout/<id>", http_502),
    "http_400": ("python", "python export_events.py", http_400),
    "http_409": ("curl", "curl -X PUT /v1/buckets/assets", http_409),
    "git_checkout_overwrite": ("git", "git checkout hotfix", git_checkout_overwrite),
    "git_no_remote": ("git", "git fetch upstream", git_no_remote),
    "dns_failure": ("curl", "curl https://api.payments.invalid/v1/ping", dns_failure),
    "node_syntax": ("node", "node -e \"require('./config.js')\"", node_syntax),
    "python_syntax": ("python", "python totals.py", python_syntax),
    "sqlite_no_table": ("python", "python report.py", sqlite_no_table),
    "gcc_missing_header": ("gcc", "gcc -c main.c", gcc_missing_header),
    "make_separator": ("make", "make build", make_separator),
    "json_extra_data": ("python", "python load_events.py", json_extra_data),
    "ln_exists": ("shell", "ln -s releases/v7 current", ln_exists),
    "go_unused_import": ("go", "go build ./...", go_unused_import),
    "node_eaddrinuse": ("node", "node api.js", node_eaddrinuse),
}

VARIANTS = 3


def record(kinds: dict[str, tuple[str, str, Callable[[Path, int], Run]]], split: str) -> list[dict[str, Any]]:
    recorded = []
    for kind, (tool, command, runner) in kinds.items():
        runs: list[dict[str, Any]] = []
        for variant in range(VARIANTS):
            folder = Path(tempfile.mkdtemp(prefix=f"{kind}-"))
            try:
                output, code = runner(folder, variant)
            except (OSError, subprocess.SubprocessError) as exc:
                print(f"  {kind}: left out ({exc})", file=sys.stderr)
                break
            finally:
                shutil.rmtree(folder, ignore_errors=True)
            if code == 0:
                print(f"  {kind}: left out (the command succeeded: {output[:80]!r})", file=sys.stderr)
                break
            runs.append({"output": output, "exit_code": code})
            time.sleep(1.1)  # another second in every time a tool prints
        if len(runs) == VARIANTS:
            recorded.append({"kind": kind, "split": split, "tool": tool, "command": command, "runs": runs})
            print(f"{kind}: exit {runs[0]['exit_code']}, {len(runs[0]['output'])} chars", file=sys.stderr)
    return recorded


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--only", nargs="*", help="record only these kinds, keeping the others the file holds")
    args = parser.parse_args(argv)
    recorded = [
        *record({k: v for k, v in KINDS.items() if not args.only or k in args.only}, "dev"),
        *record({k: v for k, v in TEST_KINDS.items() if not args.only or k in args.only}, "test"),
    ]
    if args.only and args.out.exists():
        kept = {k["kind"]: k for k in json.loads(args.out.read_text(encoding="utf-8"))["kinds"]}
        kept.update((k["kind"], k) for k in recorded)
        recorded = list(kept.values())
    body = {
        "about": "Error texts printed by real commands on this machine (bench/record_agent_errors.py): "
        "each kind run three times in fresh folders, on other ports and ids. Split dev: the kinds the "
        "signature rules were written on; test: kinds recorded after them.",
        "recorded_on": time.strftime("%Y-%m-%d"),
        "kinds": recorded,
    }
    args.out.write_text(json.dumps(body, ensure_ascii=False, indent=1) + "\n")
    print(f"{len(recorded)} kinds written to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
