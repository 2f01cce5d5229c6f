"""How the CLI shows what the façade returns to a person: card tables with their traces, and
what became of a batch. Pure: values in, rich renderables or text out."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from rich.table import Table

from engine.cli.common import literal, short

if TYPE_CHECKING:
    from engine.models import GraphPath, MemoryCard, StoreResult, Trace

__all__ = ["cards_table", "tally"]


def tally(results: list[StoreResult]) -> str:
    """What became of a batch, by status, in a person's words.

    >>> from engine.models import StoreResult
    >>> tally([StoreResult(id="a", namespace="n", importance=0.5),
    ...        StoreResult(id="a", namespace="n", importance=0.5, status="duplicate")])
    '1 stored, 1 duplicate (seen before), 0 kept in working memory only, 0 failed'
    """
    count = Counter(result.status for result in results)
    duplicates = "duplicate" if count["duplicate"] == 1 else "duplicates"
    return (f"{count['stored']} stored, {count['duplicate']} {duplicates} (seen before), "
            f"{count['skipped'] + count['working']} kept in working memory only, 0 failed")  # fmt: skip


def cards_table(query: str, cards: list[MemoryCard]) -> Table:
    """Cards as a table: score, content with its citation, channels, graph path, decay."""
    table = Table(title=f"recall: {query}", show_lines=True, title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("score", justify="right")
    # fold: text without spaces (Chinese) breaks by display width instead of being cut short.
    table.add_column("memory (id)", ratio=3, overflow="fold")
    table.add_column("found by (rank: raw score)", ratio=2)
    table.add_column("graph path", ratio=2)
    table.add_column("decay", justify="right")
    for position, card in enumerate(cards, start=1):
        trace = card.trace
        channels = "" if trace is None else "\n".join(
            f"{h.channel} #{h.rank}: {h.score:.3f}" for h in trace.channels
        )
        table.add_row(
            str(position),
            f"{card.score:.3f}",
            f"{literal(card.content)}\n[dim]{card.id[:8]} · {card.occurred_at:%Y-%m-%d}"
            + "".join(f" · {literal(t.phrase)}: {literal(t.text)}" for t in card.times)
            + "[/dim]" + _update_note(trace),
            channels,
            "" if trace is None else _path_text(trace.path, card.id),
            "" if trace is None else f"{trace.decay:.2f}",
        )
    return table


def _update_note(trace: Trace | None) -> str:
    if trace is None:
        return ""
    if trace.superseded_by:
        return f"\n[dim]superseded by {trace.superseded_by[:8]}[/dim]"
    if trace.supersedes:
        return f"\n[dim]updates {', '.join(i[:8] for i in trace.supersedes)}[/dim]"
    return ""


def _path_text(path: GraphPath | None, card_id: str) -> str:
    if path is None:
        return ""
    parts = []
    for index, node in enumerate(path.nodes):
        name = literal(node.name) if node.label != "Episode" else short(node.name, 40)
        if node.id == card_id:
            name = "this memory"
        parts.append(f"{node.label}({name or node.id[:8]})")
        if index < len(path.relationships):
            parts.append(f"-{path.relationships[index]}-")
    return " ".join(parts)
