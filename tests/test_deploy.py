"""Deployment files checked without a Docker engine (none runs here): docker-compose.yml and
the Dockerfile parsed and held to the settings model, and the container's command, a plain
`hindsight serve`, run outside Docker with the compose environment."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.settings import Settings
from engine.settings.doc import env_names, render_env_example, render_markdown, setting_docs
from engine.settings.weights import ChannelWeights, ImportanceWeights
from tests.backends import unavailable
from tests.serving import HINDSIGHT, free_port, served

ROOT = Path(__file__).parent.parent
COMPOSE: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
DOCKERFILE = (ROOT / "Dockerfile").read_text(encoding="utf-8")
SETTING_NAMES = {
    name
    for cls in (Settings, ChannelWeights, ImportanceWeights)
    for field in cls.model_fields
    for name in env_names(cls, field)
}


def _service(name: str) -> dict[str, Any]:
    return COMPOSE["services"][name]  # type: ignore[no-any-return]


def test_compose_wires_neo4j_qdrant_and_hindsight_with_healthchecks_and_volumes() -> None:
    assert set(COMPOSE["services"]) == {"neo4j", "qdrant", "hindsight"}
    assert _service("neo4j")["image"] == "neo4j:5"
    assert re.fullmatch(r"qdrant/qdrant:v\d+\.\d+\.\d+", _service("qdrant")["image"])
    declared = set(COMPOSE["volumes"])
    for name, service in COMPOSE["services"].items():
        assert service["restart"] == "unless-stopped", name
        assert service["healthcheck"]["test"], name
        assert {"interval", "timeout", "retries"} <= set(service["healthcheck"]), name
        mounts = [v.split(":") for v in service["volumes"]]
        named = [mount for mount in mounts if not mount[0].startswith("./")]
        assert named and all(mount[0] in declared for mount in named), name  # the data in named volumes
        assert all((ROOT / mount[0]).is_file() for mount in mounts if mount not in named), name
    assert {target for _, target in (v.split(":") for v in _service("neo4j")["volumes"])} == {"/data", "/logs"}
    assert _service("qdrant")["volumes"] == [
        "qdrant-data:/qdrant/storage", "./tools/qdrant/config.yaml:/qdrant/config/production.yaml:ro"
    ]  # fmt: skip


def test_compose_runs_the_qdrant_version_the_tests_run() -> None:
    from tests.qdrant_nodes import binary

    found = binary()
    if found is None:
        unavailable("no Qdrant server binary to compare the compose image with", "qdrant")
    version = subprocess.run([str(found), "--version"], capture_output=True, text=True, check=True).stdout
    assert _service("qdrant")["image"] == "qdrant/qdrant:v" + version.split()[-1]
    hindsight = _service("hindsight")
    assert hindsight["depends_on"] == {
        "neo4j": {"condition": "service_healthy"}, "qdrant": {"condition": "service_healthy"}
    }  # fmt: skip
    assert "NEO4J_PASSWORD" in _service("neo4j")["environment"]["NEO4J_AUTH"]  # auth from env


def test_hindsight_service_env_is_the_settings_model_and_reaches_services_by_name() -> None:
    env = _service("hindsight")["environment"]
    assert set(env) <= SETTING_NAMES, set(env) - SETTING_NAMES
    assert env["HINDSIGHT_BACKEND"] == "neo4j"
    assert env["NEO4J_URI"] == "bolt://neo4j:7687" and env["QDRANT_URL"] == "http://qdrant:6333"
    assert _service("hindsight")["command"] == ["hindsight", "serve"]
    # Every variable compose substitutes from .env is one .env.example lists.
    text = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
    substituted = set(re.findall(r"\$\{(\w+)", text))
    listed = set(re.findall(r"^#? ?(\w+)=", (ROOT / ".env.example").read_text(encoding="utf-8"), re.M))
    assert substituted <= listed, substituted - listed


def test_env_example_and_configuration_doc_are_generated_from_the_settings() -> None:
    assert (ROOT / ".env.example").read_text(encoding="utf-8") == render_env_example(), (
        "run `python -m engine.settings.doc env > .env.example`"
    )
    assert (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8") == render_markdown(), (
        "run `python -m engine.settings.doc markdown > docs/configuration.md`"
    )
    listed = set(re.findall(r"^#? ?(\w+)=", render_env_example(), re.M))
    assert SETTING_NAMES - {"HINDSIGHT_NEO4J_URI"} >= listed - {"NEO4J_PASSWORD"}
    preferred = {env_names(cls, f)[0] for cls in (Settings, ChannelWeights, ImportanceWeights)
                 for f in cls.model_fields if f not in {"weights", "importance"}}  # fmt: skip
    assert preferred <= listed, preferred - listed


def test_every_setting_says_what_it_trades_and_where_it_belongs() -> None:
    for doc in setting_docs():
        assert doc.description and doc.section, doc.env
        assert not doc.description.startswith("..."), doc.env  # a description stands alone


def test_dockerfile_is_slim_non_root_healthchecked_and_serves() -> None:
    assert re.search(r"^FROM python:3\.11-slim", DOCKERFILE, re.M)
    assert "download.pytorch.org/whl/cpu" in DOCKERFILE  # never the multi-GB CUDA build
    user = re.search(r"^USER (\S+)", DOCKERFILE, re.M)
    assert user and user.group(1) not in {"root", "0"}
    assert re.search(r"^HEALTHCHECK .*\n?.*CMD .*/health", DOCKERFILE, re.M)
    assert re.search(r'^CMD \["hindsight", "serve"\]', DOCKERFILE, re.M)
    # MiniLM's ONNX export is made at build time, where the server's user can read it.
    cache = re.search(r"HINDSIGHT_MODEL_CACHE_DIR=(\S+)", DOCKERFILE)
    assert cache and not cache.group(1).startswith(("/root", "~"))
    assert "cache_dir=Settings().model_cache_dir).embed" in DOCKERFILE


def _dockerfile_healthcheck() -> list[str]:
    joined = DOCKERFILE.replace("\\\n", " ")
    found = re.search(r"^HEALTHCHECK .*? CMD (.+)$", joined, re.M)
    assert found
    return shlex.split(found.group(1))


def _compose_env(**overrides: str) -> dict[str, str]:
    """The hindsight service's environment with compose's defaults substituted."""
    env: dict[str, str] = {}
    for key, value in _service("hindsight")["environment"].items():
        env[key] = re.sub(r"\$\{\w+:-([^}]*)\}", r"\1", str(value)).replace("${NEO4J_PASSWORD}", "pw")
    return {**os.environ, **env, "HF_HUB_OFFLINE": "1", **overrides}


def test_the_container_command_waits_for_neo4j_then_fails_clearly(tmp_path: Path) -> None:
    """Readiness is not guaranteed: with no Neo4j at `neo4j:7687` the server retries (logged),
    then stops with a clear error instead of serving half a memory."""
    env = _compose_env(HINDSIGHT_DATA_DIR=str(tmp_path), HINDSIGHT_CONNECT_ATTEMPTS="3")
    done = subprocess.run([HINDSIGHT, "serve"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "cannot reach Neo4j at bolt://neo4j:7687" in done.stderr
    assert done.stderr.count("Retrying") == 2  # attempts 1 and 2 waited, attempt 3 gave up


def test_the_container_command_serves_and_passes_the_images_healthcheck(tmp_path: Path) -> None:
    """The compose environment as it is, but on the embedded backend (no Neo4j here) unless
    NEO4J_URI names a live one; then the Dockerfile's HEALTHCHECK command against it."""
    port = free_port()
    overrides = {"HINDSIGHT_DATA_DIR": str(tmp_path / "data"), "HINDSIGHT_PORT": str(port),
                 "HINDSIGHT_HOST": "127.0.0.1"}  # fmt: skip
    if os.environ.get("NEO4J_URI"):
        overrides |= {k: os.environ[k] for k in ("NEO4J_URI", "NEO4J_PASSWORD") if k in os.environ}
        overrides["QDRANT_URL"] = os.environ.get("QDRANT_URL", "")
    else:
        overrides["HINDSIGHT_BACKEND"] = "embedded"
    env = _compose_env(**overrides)
    with served([], env, tmp_path / "server.log", port):
        check = subprocess.run(_dockerfile_healthcheck(), env=env, capture_output=True, timeout=30)
        assert check.returncode == 0, check.stderr
    check = subprocess.run(_dockerfile_healthcheck(), env=env, capture_output=True, timeout=30)
    assert check.returncode != 0  # and it fails once the server is gone


@pytest.mark.parametrize("name", ["neo4j", "qdrant", "hindsight"])
def test_healthchecks_are_shell_or_exec_forms(name: str) -> None:
    test = _service(name)["healthcheck"]["test"]
    assert test[0] in {"CMD", "CMD-SHELL"} and len(test) >= 2


def test_every_package_the_code_imports_is_declared() -> None:
    """A package imported directly must be a dependency of its own, not one that another
    dependency happens to bring (and may stop bringing)."""
    import ast
    import sys
    import tomllib
    from importlib.metadata import packages_distributions

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {
        re.split(r"[<>=!\[; ]", spec, maxsplit=1)[0].lower().replace("_", "-")
        for spec in project["dependencies"]
    }
    ours = {"engine", "mcp_server", "graph_schema", "bench", "tests"}
    imported: set[str] = set()
    for package in ("engine", "mcp_server", "graph_schema", "bench"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    imported |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    imported.add(node.module.split(".")[0])
    third_party = imported - ours - set(sys.stdlib_module_names)
    distributions = packages_distributions()
    undeclared = {
        module: distributions.get(module)
        for module in third_party
        if not {d.lower().replace("_", "-") for d in distributions.get(module, [])} & declared
    }
    assert not undeclared, undeclared


def test_the_engine_says_what_a_knob_trades_not_what_a_run_measured() -> None:
    """Numbers of benchmark runs live in docs/benchmarks.md: a setting's description (and so
    docs/configuration.md), a comment or a docstring that cites one goes stale at the next run."""
    pattern = re.compile(r"R@\d|LoCoMo")
    cited = [f"{path.relative_to(ROOT)}:{number}"
             for path in sorted((ROOT / "engine").rglob("*.py"))
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             if pattern.search(line)]  # fmt: skip
    assert cited == []
    assert not pattern.search((ROOT / "docs" / "configuration.md").read_text(encoding="utf-8"))


def test_the_readme_python_tour_runs_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    block = re.search(r"\*\*Python\.\*\*\n\n```python\n(.*?)```", (ROOT / "README.md").read_text(), re.DOTALL)
    assert block, "README.md shows the Python tour"
    monkeypatch.chdir(tmp_path)  # it writes ./hindsight-data
    exec(compile(block.group(1), "README.md", "exec"), {})  # noqa: S102 - our own documentation
    assert (tmp_path / "hindsight-data").is_dir()
    printed = capsys.readouterr().out.splitlines()
    # What its comments promise: the entity's line says something, the last recall a digest.
    [summary] = [line for line in printed if line.startswith("Atlas: ")]
    assert "nothing known" not in summary and "PostgreSQL" in summary
    assert printed[-1] == "digest"
