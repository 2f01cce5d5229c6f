"""A picture of the memory around one entity, for users without Neo4j Browser.

`neighbourhood` turns an `EntityProfile` (what `Memory.entity` returns) into a networkx graph
(pure); `draw` renders it with matplotlib to PNG, SVG or a self-contained HTML page (the SVG
inline, no script, nothing fetched). `hindsight graph ENTITY --out FILE` and the quickstart
notebook both call these two.
"""

from __future__ import annotations

import html
import io
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import networkx as nx

from engine.views import EntityProfile

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["COLOURS", "draw", "neighbourhood"]

# The colours of graph_schema/browser.grass, so both pictures read the same way.
COLOURS = {"entity": "#6DCE9E", "episode": "#68BDF6", "decision": "#FFC454", "fact": "#F16667"}
_LABEL_CHARS = 40
_LINE_CHARS = 16
_LEGEND = (("entity", "entity"), ("episode", "episode (MENTIONS it)"),
           ("decision", "decision (ABOUT it)"), ("fact", "fact: predicate, confidence"))  # fmt: skip


def _short(text: str) -> str:
    """At most _LABEL_CHARS characters, cut at a space so that no word or number is split
    (text without spaces, such as Chinese, is cut where it must be).

    >>> _short("The Atlas release 39.6 ships to every region next week and then")
    'The Atlas release 39.6 ships to every…'
    """
    if len(text) <= _LABEL_CHARS:
        return text
    cut = text[: _LABEL_CHARS - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > _LABEL_CHARS // 2 else cut).rstrip(" ,;:") + "…"


def _wrapped(label: str) -> str:
    """A label on lines of at most _LINE_CHARS, so that neighbours overlap less."""
    return "\n".join(textwrap.wrap(label, _LINE_CHARS, break_long_words=True)) or label


def neighbourhood(profile: EntityProfile) -> nx.MultiDiGraph:
    """The entity, its latest episodes (MENTIONS), its decisions (ABOUT) and its facts (FACT
    edges to the other entity), as a graph whose nodes carry `kind` and `label`.

    >>> from engine.models import Entity
    >>> atlas = Entity(id="a", namespace="ns", name="Atlas", canonical="atlas", type="PRODUCT",
    ...                first_seen=0, last_seen=0, created_at=0)
    >>> graph = neighbourhood(EntityProfile(entity=atlas, facts=[], decisions=[], latest_episodes=[]))
    >>> dict(graph.nodes(data=True))
    {'a': {'kind': 'entity', 'label': 'Atlas'}}
    """
    graph = nx.MultiDiGraph()
    centre = profile.entity
    graph.add_node(centre.id, kind="entity", label=centre.name)
    for episode in profile.latest_episodes:
        graph.add_node(episode.id, kind="episode", label=_short(episode.summary or episode.content))
        graph.add_edge(episode.id, centre.id, type="MENTIONS", label="")
    for decision in profile.decisions:
        label = _short(decision.text) + (" (superseded)" if decision.status == "superseded" else "")
        graph.add_node(decision.id, kind="decision", label=label)
        graph.add_edge(decision.id, centre.id, type="ABOUT", label="")
    for fact in profile.facts:
        for node_id, name in ((fact.subject_id, fact.subject), (fact.object_id, fact.object)):
            if node_id not in graph:
                graph.add_node(node_id, kind="entity", label=name)
        closed = " (closed)" if fact.valid_to is not None else ""
        graph.add_edge(fact.subject_id, fact.object_id, type="FACT",
                       label=f"{fact.predicate} {fact.confidence:.2f}{closed}")  # fmt: skip
    return graph


def draw(graph: nx.MultiDiGraph, out: Path, *, title: str = "") -> Path:
    """Render to `out`; the suffix picks the format: .png, .svg or .html.

    Raises:
        ValueError: another suffix.
    """
    suffix = out.suffix.lower()
    if suffix not in {".png", ".svg", ".html"}:
        raise ValueError(f"out: must end in .png, .svg or .html, got {out.name!r}")
    figure = _figure(graph, title)
    if suffix == ".html":
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", bbox_inches="tight")
        out.write_text(_page(title, buffer.getvalue(), graph), encoding="utf-8")
    else:
        figure.savefig(out, format=suffix[1:], dpi=150, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(figure)
    return out


def _figure(graph: nx.MultiDiGraph, title: str) -> Figure:
    import matplotlib

    matplotlib.use("Agg")  # no screen needed
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    figure, axes = plt.subplots(figsize=(13, 9))
    # Seeded: the same graph, the same picture; k spreads the nodes for their wrapped labels.
    positions = nx.spring_layout(graph, seed=7, k=2.0 / max(1, graph.number_of_nodes()) ** 0.5)
    kinds = nx.get_node_attributes(graph, "kind")
    nx.draw_networkx_nodes(
        graph, positions, ax=axes, node_size=[1400 if kinds[n] == "entity" else 700 for n in graph],
        node_color=[COLOURS[kinds[n]] for n in graph],
    )  # fmt: skip
    labels = {node: _wrapped(label) for node, label in nx.get_node_attributes(graph, "label").items()}
    # clip_on=False: a label of a node at the edge is drawn whole, never cut by the axes.
    nx.draw_networkx_labels(graph, positions, labels, ax=axes, font_size=8, clip_on=False)
    # Facts may run both ways between two entities: curved, so each edge and label shows.
    curve = "arc3,rad=0.2"
    for kind, colour, width in (("MENTIONS", "#8DCC93", 1.0), ("ABOUT", "#FFC454", 1.5), ("FACT", COLOURS["fact"], 3.0)):
        edges = [(a, b) for a, b, t in graph.edges(data="type") if t == kind]
        nx.draw_networkx_edges(graph, positions, edgelist=edges, ax=axes, edge_color=colour, width=width,
                               arrows=True, node_size=1000,
                               connectionstyle=curve if kind == "FACT" else "arc3")  # fmt: skip
    fact_labels = {(a, b): label for a, b, data in graph.edges(data=True)
                   if data["type"] == "FACT" for label in [data["label"]]}  # fmt: skip
    nx.draw_networkx_edge_labels(graph, positions, fact_labels, ax=axes, font_size=7,
                                 font_color=COLOURS["fact"], connectionstyle=curve, clip_on=False)  # fmt: skip
    axes.margins(0.15)  # room for the labels of the outer nodes
    axes.legend(handles=[Patch(color=COLOURS[kind], label=text) for kind, text in _LEGEND],
                loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)  # fmt: skip
    axes.set_title(title)
    axes.set_axis_off()
    return figure


def _page(title: str, svg: str, graph: nx.MultiDiGraph) -> str:
    start = svg.find("<svg")
    rows = "".join(
        f"<tr><td>{html.escape(data['kind'])}</td><td>{html.escape(data['label'])}</td>"
        f"<td><code>{html.escape(str(node))}</code></td></tr>"
        for node, data in graph.nodes(data=True)
    )
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        "<style>body{font-family:sans-serif;margin:2em}td{padding:2px 8px}</style></head><body>"
        f"<h1>{html.escape(title)}</h1>{svg[start:]}"
        f"<table><tr><th>kind</th><th>label</th><th>id</th></tr>{rows}</table></body></html>"
    )
