"""Split long content into chunks at sentence boundaries. Pure.

A long document recalled as one episode buries the sentence that answers; chunks of 50-200
tokens (settings) are each an episode of their own, linked PART_OF to the whole.
"""

from __future__ import annotations

from engine.text import count_tokens, split_sentences

__all__ = ["chunk_text"]


def chunk_text(text: str, *, max_tokens: int, min_tokens: int) -> list[str]:
    """Chunks of at most `max_tokens` tokens, at least `min_tokens` where the text allows.

    Sentences are packed greedily; a sentence longer than `max_tokens` is cut between words.
    A short last chunk is rebalanced with the one before it. A text within `max_tokens` is
    one chunk.

    >>> chunk_text("One two three. Four five. Six seven eight.", max_tokens=5, min_tokens=2)
    ['One two three. Four five.', 'Six seven eight.']
    >>> chunk_text("a b c d e f g", max_tokens=3, min_tokens=1)
    ['a b c', 'd e f', 'g']
    """
    if count_tokens(text) <= max_tokens:
        return [text.strip()]
    pieces: list[str] = []
    for sentence in split_sentences(text):
        pieces.extend(_cut(sentence, max_tokens))
    chunks: list[list[str]] = [[]]
    size = 0
    for piece in pieces:
        tokens = count_tokens(piece)
        if chunks[-1] and size + tokens > max_tokens:
            chunks.append([])
            size = 0
        chunks[-1].append(piece)
        size += tokens
    return [" ".join(chunk) for chunk in _fold_small(chunks, max_tokens, min_tokens)]


def _fold_small(chunks: list[list[str]], max_tokens: int, min_tokens: int) -> list[list[str]]:
    """Merge each chunk under `min_tokens` into a neighbour that has room, else rebalance."""

    def size(chunk: list[str]) -> int:
        return sum(count_tokens(p) for p in chunk)

    index = 0
    while len(chunks) > 1 and index < len(chunks):
        if size(chunks[index]) >= min_tokens:
            index += 1
            continue
        before = index - 1 if index > 0 else None
        after = index + 1 if index + 1 < len(chunks) else None
        if before is not None and size(chunks[before]) + size(chunks[index]) <= max_tokens:
            chunks[before : index + 1] = [chunks[before] + chunks[index]]
            index = before
        elif after is not None and size(chunks[index]) + size(chunks[after]) <= max_tokens:
            chunks[index : after + 1] = [chunks[index] + chunks[after]]
        else:
            pair = before if before is not None else index
            chunks[pair : pair + 2] = _rebalance(chunks[pair] + chunks[pair + 1], max_tokens)
            index += 1
    return chunks


def _cut(sentence: str, max_tokens: int) -> list[str]:
    """A sentence over the limit, cut into equal runs of at most `max_tokens` tokens."""
    total = count_tokens(sentence)
    if total <= max_tokens:
        return [sentence]
    runs_needed = -(-total // max_tokens)
    words = sentence.split()
    if len(words) <= 1:  # CJK without spaces: cut by characters
        step = -(-len(sentence) // runs_needed)
        return [sentence[i : i + step] for i in range(0, len(sentence), step)]
    per_run = -(-total // runs_needed)
    runs: list[str] = []
    current: list[str] = []
    for word in words:
        if current and count_tokens(" ".join([*current, word])) > per_run:
            runs.append(" ".join(current))
            current = []
        current.append(word)
    runs.append(" ".join(current))
    return runs


def _rebalance(pieces: list[str], max_tokens: int) -> list[list[str]]:
    """Two chunks from these pieces, split where their sizes are closest, each within max."""
    sizes = [count_tokens(p) for p in pieces]
    total = sum(sizes)
    best, best_gap = len(pieces) - 1, total
    running = 0
    for cut in range(1, len(pieces)):
        running += sizes[cut - 1]
        if running <= max_tokens and total - running <= max_tokens:
            gap = abs(total - 2 * running)
            if gap < best_gap:
                best, best_gap = cut, gap
    return [pieces[:best], pieces[best:]]
