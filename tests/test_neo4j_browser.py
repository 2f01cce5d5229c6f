"""Neo4j Browser, for real: the demo conversation stored on Neo4j, then headless Chromium drives
the Browser the test server serves (tools/browser-check/check.mjs): connect, set the
parameters, apply graph_schema/browser.grass with :style, run the saved entity_graph query,
save a screenshot, and report the colour and caption of every node drawn.

Needs Neo4j (NEO4J_URI, NEO4J_BROWSER_URL), Debian's chromium and tools/browser-check's
node_modules (`make install`); without them it is skipped with the reason, unless
HINDSIGHT_REQUIRE_LIVE names `browser` (CI), which makes a missing piece a failure.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import NoReturn

import pytest

from engine import Memory
from engine.demo import sample_episodes
from graph_schema import NODES
from graph_schema.saved import saved_queries
from tests.backends import live, open_settings, unavailable

ROOT = Path(__file__).parent.parent
CHECK = ROOT / "tools" / "browser-check"
GRASS = ROOT / "graph_schema" / "browser.grass"
ARTIFACT = CHECK / "target" / "neo4j-browser.png"


def _required(what: str) -> NoReturn:
    unavailable(f"{what}: the Neo4j Browser check cannot run", "browser")


def _grass_colours() -> dict[str, str]:
    text = re.sub(r"/\*.*?\*/", "", GRASS.read_text(encoding="utf-8"), flags=re.DOTALL)
    return {
        label: colour.upper()
        for label, colour in re.findall(r"node\.(\w+)\s*\{[^}]*?\bcolor:\s*(#[0-9A-Fa-f]{6})", text)
    }


@pytest.mark.neo4j
def test_the_browser_draws_the_saved_query_in_the_style_sheets_colours(tmp_path: Path) -> None:
    bolt = live("NEO4J_URI", "Neo4j server")
    browser_url = os.environ.get("NEO4J_BROWSER_URL") or _required("NEO4J_BROWSER_URL is not set")
    if not Path("/usr/bin/chromium").exists():
        _required("/usr/bin/chromium is missing (apt-get install chromium)")
    if not (CHECK / "node_modules" / "playwright-core").exists() or not shutil.which("node"):
        _required("node or tools/browser-check/node_modules is missing (make install)")

    with Memory.open(settings=open_settings("neo4j", tmp_path)) as memory:
        memory.store_many([{**item, "namespace": "demo"} for item in sample_episodes()])
        memory.reflect(namespace="demo", force=True)
    query = tmp_path / "entity_graph.cypher"
    query.write_text(saved_queries()["entity_graph"].text, encoding="utf-8")
    shot = tmp_path / "neo4j-browser.png"
    done = subprocess.run(
        ["node", str(CHECK / "check.mjs"), "--url", browser_url, "--bolt", bolt,
         "--grass", str(GRASS), "--query", str(query), "--param", "namespace=demo",
         "--param", "entity=atlas", "--out", str(shot)],
        cwd=CHECK, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    nodes = json.loads(done.stdout.strip().splitlines()[-1])["nodes"]
    ARTIFACT.parent.mkdir(exist_ok=True)
    shutil.copyfile(shot, ARTIFACT)  # kept for a person to look at

    colours = _grass_colours()
    assert set(colours) >= {n.label for n in NODES if n.label != "Reflection"}
    fills = [str(n["fill"]).upper() for n in nodes]
    assert nodes and set(fills) <= set(colours.values()), (fills, colours)
    atlas = [n for n in nodes if n["caption"].strip() == "Atlas"]
    assert atlas and atlas[0]["fill"].upper() == colours["Entity"]  # captioned with {name}
    assert fills.count(colours["Episode"]) >= 2  # the episodes that mention Atlas
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
