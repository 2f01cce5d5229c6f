"""The CLI over the façade: results checked through the Python API, JSON shapes, errors."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from engine import Memory, Settings
from engine.cli import app

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_store_then_recall_json(tmp_path: Path) -> None:
    data = str(tmp_path / "d")
    code, out, _ = run("store", "We decided to use Redis for the session cache.", "--session", "s1",
                       "--importance", "high", "--data-dir", data, "--json")
    assert code == 0
    stored = json.loads(out)
    assert set(stored) >= {"id", "status"} and stored["status"] == "stored"

    code, out, _ = run("recall", "which cache did we pick?", "--data-dir", data, "--json", "-k", "3")
    assert code == 0
    cards = json.loads(out)
    assert cards[0]["id"] == stored["id"]
    assert {"id", "content", "score", "created_at", "entities", "trace"} <= set(cards[0])
    assert {"channels", "decay", "final"} <= set(cards[0]["trace"])

    with Memory.open(data) as memory:
        assert memory.get(stored["id"]).importance == 0.9
        assert memory.get(stored["id"]).session_id == "s1"


def test_stats_list_forget(tmp_path: Path) -> None:
    data = str(tmp_path / "d")
    _, out, _ = run("store", "Priya owns the mobile app.", "--data-dir", data, "--json")
    episode_id = json.loads(out)["id"]
    code, out, _ = run("stats", "--data-dir", data, "--json")
    assert code == 0 and json.loads(out)["episodes"] == 1
    assert set(json.loads(out)) >= {"episodes", "entities", "decisions", "facts"}
    code, out, _ = run("list", "--data-dir", data, "--json")
    assert [e["id"] for e in json.loads(out)] == [episode_id]
    code, out, _ = run("forget", episode_id, "--data-dir", data, "--json")
    assert code == 0 and json.loads(out)["deleted_at"] is not None
    code, _, err = run("forget", episode_id, "--data-dir", data)
    assert code == 3 and "not found" in err
    with Memory.open(data) as memory:
        assert memory.stats().episodes == 0


def test_sessions_show_each_session_with_its_digest(tmp_path: Path) -> None:
    data = str(tmp_path / "d")
    for text in ("We decided to use Redis for the session cache.", "Redis runs on the Atlas cluster."):
        run("store", text, "--session", "s1", "--importance", "high", "--data-dir", data)
    code, out, _ = run("sessions", "--data-dir", data)
    assert code == 0 and "s1" in out and "no digest yet" in out
    assert run("reflect", "--data-dir", data)[0] == 0
    code, out, _ = run("sessions", "--data-dir", data, "--json")
    [view] = json.loads(out)
    assert view["session_id"] == "s1" and view["episodes"] == 2 and "Redis" in view["digest"]["text"]
    code, out, _ = run("session", "s1", "--data-dir", data)
    assert code == 0 and "Decided: We decided to use Redis for the session cache." in " ".join(out.split())
    code, _, err = run("session", "s2", "--data-dir", data)
    assert code == 3 and "session not found: s2" in err


def test_bad_input_exits_2_naming_the_field(tmp_path: Path) -> None:
    data = str(tmp_path / "d")
    code, _, err = run("store", "x", "--importance", "7", "--data-dir", data)
    assert code == 2 and "importance" in err
    code, _, err = run("store", "x", "--namespace", "a b", "--data-dir", data)
    assert code == 2 and "namespace" in err


def test_store_task_and_a_step_of_work(tmp_path: Path) -> None:
    data = str(tmp_path / "d")
    task = tmp_path / "task.json"
    task.write_text(json.dumps({"task": "Build the docs", "outcome": "success", "steps": [
        {"content": "make html\nmake: *** No rule to make target 'html'.  Stop.", "role": "make", "outcome": "failure"},
        {"content": "make -C docs html\nBuild finished.", "role": "make", "outcome": "success"}]}), encoding="utf-8")
    code, out, _ = run("store-task", str(task), "--data-dir", data, "--json")
    assert code == 0
    result = json.loads(out)
    with Memory.open(data) as memory:
        [edge] = memory.explain(result["steps"][0]["id"]).resolutions
        assert edge.fix_id == result["steps"][1]["id"]
    code, out, _ = run("store", "pytest -q\n3 failed", "--kind", "tool_call", "--outcome", "failure",
                       "--task", result["task"]["id"], "--data-dir", data, "--json")
    assert code == 0 and json.loads(out)["status"] == "stored"
    code, _, err = run("store", "x", "--outcome", "partly", "--data-dir", data)
    assert code == 2 and "outcome" in err
    task.write_text(json.dumps({"task": "t", "steps": [{"content": "ok"}], "colour": "red"}), encoding="utf-8")
    code, _, err = run("store-task", str(task), "--data-dir", data)
    assert code == 2 and "colour" in err


def test_ingest_reports_the_bad_line_and_stores_nothing(tmp_path: Path) -> None:
    data = str(tmp_path / "d")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"content": "one"}\n\n{"content": "two", "kind": "email"}\n', encoding="utf-8")
    code, _, err = run("ingest", str(bad), "--data-dir", data)
    assert code == 2 and "line 3" in err and "kind" in err
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"content": "one"}\n{not json\n', encoding="utf-8")
    code, _, err = run("ingest", str(broken), "--data-dir", data)
    assert code == 2 and "line 2" in err
    good = tmp_path / "good.jsonl"
    good.write_text("\n".join(json.dumps({"content": f"note {i}", "session_id": "s"}) for i in range(3)))
    code, out, _ = run("ingest", str(good), "--data-dir", data, "--json")
    assert code == 0 and len(json.loads(out)) == 3
    with Memory.open(data) as memory:
        assert memory.stats().episodes == 3


def test_the_readmes_ingest_lines_ingest(tmp_path: Path) -> None:
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    block = re.search(r"`ingest` reads one JSON object.*?```json\n(.*?)```", readme, re.DOTALL)
    assert block, "README.md shows the ingest format"
    turns = tmp_path / "turns.jsonl"
    turns.write_text(block.group(1), encoding="utf-8")
    code, out, _ = run("ingest", str(turns), "--data-dir", str(tmp_path / "d"), "--json")
    assert code == 0, out
    assert [r["status"] for r in json.loads(out)] == ["stored", "stored"]


def test_ingest_says_what_became_of_every_line(tmp_path: Path) -> None:
    """Repeats are duplicates, low-importance turns stay in working memory: the summary
    counts each, and agrees with what the memory holds."""
    data = str(tmp_path / "d")
    lines = [{"content": f"Release {i} of Atlas ships with the {i}th map layer.", "importance": 0.8}
             for i in range(12)]  # fmt: skip
    lines += lines[:5] + [{"content": "ok thanks"}]
    turns = tmp_path / "turns.jsonl"
    turns.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    code, out, _ = run("ingest", str(turns), "--data-dir", data)
    out = " ".join(out.split())  # as the console wraps it
    assert code == 0, out
    assert "18 lines" in out and "12 stored, 5 duplicates (seen before), 1 kept in working memory only, 0 failed" in out
    with Memory.open(data) as memory:
        assert memory.stats().episodes == 12
    code, out, _ = run("ingest", str(turns), "--data-dir", data)
    assert code == 0 and "0 stored, 17 duplicates" in " ".join(out.split())


def test_cards_wrap_chinese_by_display_width(tmp_path: Path) -> None:
    """At 80 columns a Chinese memory folds onto more lines, whole, as English wraps."""
    import io

    from rich.console import Console

    from engine.cli.render import cards_table

    text = "我们决定把星火计划的预算改成50万，下个月开始执行。"
    with Memory.open(tmp_path / "d") as memory:
        memory.store(text, importance="high")
        cards = memory.recall("预算是多少？")
    out = io.StringIO()
    Console(file=out, width=80).print(cards_table("预算是多少？", cards))
    inside = "".join(line.split("│")[3].strip() for line in out.getvalue().splitlines() if line.count("│") > 3)
    assert text in inside and "…" not in out.getvalue()


@pytest.mark.parametrize(("env", "variable", "rule"), [
    ({"HINDSIGHT_API_TOKEN": "all-ns-token"}, "HINDSIGHT_API_TOKEN", "at least 16 characters"),
    ({"HINDSIGHT_API_TOKENS": '{"short-token": "*"}'}, "HINDSIGHT_API_TOKENS", "at least 16 characters"),
    ({"HINDSIGHT_PORT": "0"}, "HINDSIGHT_PORT", "greater than 0"),
    ({"NEO4J_URI": "", "HINDSIGHT_BACKEND": "cassandra"}, "HINDSIGHT_BACKEND", "embedded"),
])  # fmt: skip
def test_a_bad_setting_at_start_up_is_one_line_naming_the_variable(
    tmp_path: Path, env: dict[str, str], variable: str, rule: str
) -> None:
    for command in (["serve", "--transport", "stdio"], ["stats"]):
        result = CliRunner(env=env).invoke(app, [*command, "--data-dir", str(tmp_path / "d")])
        assert result.exit_code == 2, result.output
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"error: {variable}: ") and rule in lines[0]
        assert "Traceback" not in result.output and "short-token" not in result.stderr


def test_demo_prints_cards_with_traces() -> None:
    code, out, _ = run("demo", "--json")
    assert code == 0
    answers = json.loads(out)
    database = answers["Which database did we pick for Atlas?"]
    assert "PostgreSQL" in database[0]["content"]
    assert all(card["trace"]["channels"] for cards in answers.values() for card in cards)
    # Reflection ran: the fact answers where Priya lives now, not the city she left.
    [fact, *_] = answers["Where does Priya live?"]
    assert fact["layer"] == "semantic" and "Lisbon" in fact["content"] and "Berlin" not in fact["content"]
    code, out, _ = run("demo")
    assert code == 0 and "recall:" in out and "found by" in out
    assert "closed on 2026-11-10" in out and "Priya lives in Berlin" in out


def test_every_facade_method_has_a_documented_command() -> None:
    command = typer.main.get_command(app)
    commands = command.commands  # type: ignore[attr-defined]
    public = {"store", "recall", "list", "forget", "stats"}
    assert public <= set(commands)
    store_many_via = "ingest"
    assert store_many_via in commands
    for name, cmd in commands.items():
        assert cmd.help, f"command {name} has no help"
        for param in cmd.params:
            if param.param_type_name == "option":
                assert getattr(param, "help", None), f"option {param.name} of {name} has no help"


def test_entity_show_merge_alias(tmp_path: Path) -> None:
    data = str(tmp_path / "d")
    for text in ("Dana Scully reviewed the Atlas design.", "Yesterday Scully signed off."):
        assert run("store", text, "--data-dir", data)[0] == 0
    code, out, _ = run("entity", "merge", "Dana Scully", "Scully", "--data-dir", data, "--json")
    assert code == 0 and "scully" in json.loads(out)["aliases"]
    code, out, _ = run("entity", "alias", "Atlas", "ATL", "--data-dir", data)
    assert code == 0 and "atl" in out
    code, out, _ = run("entity", "show", "atl", "--data-dir", data, "--json")
    profile = json.loads(out)
    assert code == 0 and profile["entity"]["name"] == "Atlas"
    assert [e["content"] for e in profile["latest_episodes"]] == ["Dana Scully reviewed the Atlas design."]
    code, _, err = run("entity", "show", "Nobody", "--data-dir", data)
    assert code == 3 and "not found" in err
    code, _, err = run("entity", "alias", "Atlas", "  ", "--data-dir", data)
    assert code == 2 and "alias" in err


def test_store_says_when_it_skipped_or_saw_again(tmp_path: Path) -> None:
    data = str(tmp_path / "d")
    code, out, _ = run("store", "ok thanks", "--data-dir", data)
    assert code == 0 and out.startswith("skipped: low importance")
    run("store", "The Kestrel demo is on Friday.", "--data-dir", data)
    code, out, _ = run("store", "The Kestrel demo is on Friday.", "--data-dir", data)
    assert code == 0 and out.startswith("duplicate of")
    code, out, _ = run("stats", "--data-dir", data, "--json")
    assert json.loads(out)["episodes"] == 1


def test_reflect_reads_every_new_episode_in_bounded_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HINDSIGHT_REFLECTION_BATCH_SIZE", "2")
    data = tmp_path / "d"
    people = ["Dana works at Acme.", "Omar lives in Lisbon.", "Priya plays the cello.", "Marco works at Initech.",
              "Li Na lives in Chengdu."]  # fmt: skip
    with Memory.open(data) as memory:
        memory.store_many([{"content": text, "importance": "high"} for text in people])
    code, out, _ = run("reflect", "--once", "--data-dir", str(data), "--json")
    assert code == 0 and json.loads(out)["episodes_seen"] == 2  # one run, as a server makes
    code, out, _ = run("reflect", "--data-dir", str(data), "--json")
    summary = json.loads(out)
    assert code == 0 and (summary["status"], summary["episodes_seen"]) == ("done", 3)  # the rest, in two runs
    with Memory.open(data) as memory:
        assert memory.entity("Li Na").summary.startswith("Li Na: lives in Chengdu")
    code, out, _ = run("reflect", "--data-dir", str(data))
    assert code == 0 and out.startswith("nothing_new: read 0 episodes")
    code, out, _ = run("reflect", "--force", "--data-dir", str(data))
    assert code == 0 and "read 5 episodes in 3 runs" in out and "0 new" in out  # re-read once, nothing doubled


def test_lifecycle_commands(tmp_path: Path) -> None:
    data = str(tmp_path / "d")
    ids = []
    for text in ("Atlas uses Postgres for orders.", "Atlas uses Postgres with PostGIS.",
                 "Dana works at Acme."):  # fmt: skip
        code, out, _ = run("store", text, "--importance", "high", "--data-dir", data, "--json")
        ids.append(json.loads(out)["id"])
    code, out, _ = run("reflect", "--data-dir", data, "--json")
    assert code == 0 and json.loads(out)["facts_written"] == 2  # Atlas uses Postgres; Dana works_at Acme
    assert run("forget", ids[2], "--data-dir", data)[0] == 0
    code, out, _ = run("restore", ids[2], "--data-dir", data)
    assert code == 0 and out.startswith("restored")
    code, out, _ = run("purge", ids[2], "--data-dir", data)
    assert code == 0 and "would purge 1" in out and "--yes" in out
    code, out, _ = run("purge", ids[2], "--yes", "--data-dir", data, "--json")
    assert code == 0 and json.loads(out)["episodes"] == [ids[2]]
    code, out, _ = run("doctor", "--data-dir", data, "--json")
    assert code == 0 and json.loads(out)["episodes"] == 2
    code, out, _ = run("audit", "--data-dir", data, "--json")
    actions = [e["action"] for e in json.loads(out)]
    assert actions[:4] == ["purge", "restore", "forget", "reflect"]
    assert {e["actor"] for e in json.loads(out)} == {"cli"}
    dump = tmp_path / "dump.jsonl"
    code, out, _ = run("export", str(dump), "--data-dir", data)
    assert code == 0 and dump.exists()
    code, out, _ = run("import", str(dump), "--data-dir", str(tmp_path / "copy"), "--json")
    assert code == 0 and json.loads(out)["vectors"] == 2
    code, _, err = run("import", str(dump), "--data-dir", str(tmp_path / "copy"))
    assert code == 2 and "empty" in err
    code, out, _ = run("export", str(dump), "--namespace", "nobody", "--data-dir", data, "--json")
    assert code == 0 and json.loads(out)["nodes"] == 0
    code, _, err = run("export", str(dump), "--namespace", "no such!", "--data-dir", data)
    assert code == 2 and "namespaces" in err
    code, out, _ = run("archive", "list", "--data-dir", data, "--json")
    assert code == 0 and json.loads(out) == []
    code, out, _ = run("maintain", "--data-dir", data, "--json")
    assert code == 0 and json.loads(out) == []


def test_a_command_does_not_read_the_mentions_index(tmp_path: Path) -> None:
    from engine.cli.common import open_memory

    with open_memory(tmp_path / "data") as memory:
        assert memory.settings.graph_index_episodes == 0
        assert memory._core.graph._mentions is None  # type: ignore[attr-defined]



def test_serve_keeps_the_mentions_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import mcp_server.server

    seen: dict[str, object] = {}

    def run_server(memory: Memory, settings: object, **_: object) -> None:
        seen["index"] = memory.settings.graph_index_episodes
        seen["mentions"] = memory._core.graph._mentions is not None  # type: ignore[attr-defined]

    monkeypatch.setattr(mcp_server.server, "run", run_server)
    code, _, err = run("serve", "--transport", "stdio", "--data-dir", str(tmp_path / "data"))
    assert code == 0, err
    assert seen == {"index": Settings().graph_index_episodes, "mentions": True}


def test_doctor_rebuilds_a_vector_store_that_no_longer_opens(tmp_path: Path) -> None:
    data = tmp_path / "d"
    _, out, _ = run("store", "Atlas uses Postgres.", "--importance", "high", "--data-dir", str(data), "--json")
    next((data / "vectors").rglob("edge_config.json")).write_text("{ not json")
    code, _, err = run("doctor", "--data-dir", str(data))
    assert code == 1 and "--rebuild-vectors" in err
    code, report, _ = run("doctor", "--rebuild-vectors", "--data-dir", str(data), "--json")
    assert code == 0 and json.loads(report)["repaired"] and json.loads(report)["set_aside"]
    code, cards, _ = run("recall", "Which database does Atlas use?", "--data-dir", str(data), "--json")
    assert code == 0 and json.loads(cards)[0]["id"] == json.loads(out)["id"]
    code, log, _ = run("audit", "--data-dir", str(data), "--json")
    assert code == 0 and [(e["action"], e["actor"]) for e in json.loads(log)][0] == ("repair", "cli")


def test_tracing_the_model_prints_no_third_party_warning(tmp_path: Path) -> None:
    # What every command that embeds a batch in torch (store_many, ingest, demo) runs first.
    done = subprocess.run(
        [sys.executable, "-c", "from engine.embed.bf16 import _load; _load()"],
        capture_output=True, text=True, timeout=300, env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "[transformers]" not in done.stderr and "Warning" not in done.stderr, done.stderr


_HEAVY = ("torch", "spacy", "onnxruntime", "transformers", "qdrant_edge", "ladybug", "neo4j", "jieba")


@pytest.mark.parametrize("command", [["--help"], ["info", "--json"]])
def test_help_and_info_load_no_model_and_no_store(command: list[str]) -> None:
    """What makes `hindsight --help` and `hindsight info` answer at once: neither imports a
    model, a tokenizer or a store client."""
    script = (
        "import sys, json\n"
        "from engine.cli import app\n"
        f"try:\n    app({command!r})\nexcept SystemExit:\n    pass\n"
        f"print(json.dumps(sorted(m for m in {_HEAVY!r} if m in sys.modules)))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True, timeout=120)  # fmt: skip
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []


def test_info_says_what_the_settings_choose_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HINDSIGHT_VECTOR_SEARCH_THREADS", "0")
    monkeypatch.setenv("HINDSIGHT_EMBEDDER_THREADS", "1")  # the default's value, set
    code, out, _ = run("info", "--data-dir", str(tmp_path), "--json")
    assert code == 0
    report = json.loads(out)
    cores = os.cpu_count()
    assert report["cores"] == cores and report["packages"]["spacy"]
    choices = {c["name"]: c for c in report["choices"]}
    assert choices["vector_search_threads"]["value"] == str(cores)  # 0: one per core
    assert choices["graph_threads"]["why"].startswith("the default on any machine")
    assert choices["embedder_query_threads"]["why"].startswith("the default on any machine")
    assert choices["embedder_threads"]["why"] == "set"
    assert choices["embedder_precision"]["value"] == "int8"  # auto, on any CPU
    assert choices["data_dir"]["value"] == str(tmp_path.resolve())
    assert choices["graph_index_episodes"]["value"] == "500,000" and "by statements" in choices["graph_index_episodes"]["why"]
