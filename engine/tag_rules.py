"""spaCy's attribute ruler, applied by lookup: the same parts of speech, morphology and lemmas.

The English model's ruler holds ~180 token patterns (its tag map and exceptions), and its
matcher tries every one at every token: a fifth of reflection's parse. Most patterns name one
token by its exact tag, its exact lowercase form or both; those are found by dictionary
lookup, the rest by a matcher of their own, and every rule is applied in the ruler's order
(a later rule overrides an earlier one), so a Doc comes out as the ruler would leave it.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

__all__ = ["TagRules"]

# A one-token pattern on these attributes, each a value, an IN or a NOT_IN list, is checked
# here; the rest (several tokens, REGEX) by a Matcher.
_ATTRIBUTES = {"TAG": "tag_", "LOWER": "lower_", "DEP": "dep_", "IS_SPACE": "is_space"}

# (token attribute, accepted values or None, refused values or None)
Condition = tuple[str, frozenset[object] | None, frozenset[object] | None]


class TagRules:
    """The rules of an `AttributeRuler`, applied to a Doc by `__call__`."""

    def __init__(self, ruler: Any) -> None:
        from spacy.matcher import Matcher

        self._attrs: list[dict[Any, Any]] = list(ruler.attrs)  # normalised, as the ruler sets them
        self._indices: list[int] = list(ruler.indices)
        # Rules found by a token's lowercase form, by its tag, or tried at every token.
        self._by_lower: dict[str, list[tuple[int, list[Condition]]]] = defaultdict(list)
        self._by_tag: dict[str, list[tuple[int, list[Condition]]]] = defaultdict(list)
        self._anywhere: list[tuple[int, list[Condition]]] = []
        self._matcher = Matcher(ruler.vocab)
        for order, rule in enumerate(ruler.patterns):
            for pattern in rule["patterns"]:
                conditions = _conditions(pattern) if rule["index"] in (0, -1) else None
                if conditions is None:
                    self._matcher.add(str(order), [pattern])
                    continue
                accepting = {attribute: accepted for attribute, accepted, _ in conditions if accepted}
                for attribute, index in (("lower_", self._by_lower), ("tag_", self._by_tag)):
                    if attribute in accepting:
                        for value in accepting[attribute]:
                            index[str(value)].append((order, conditions))
                        break
                else:
                    self._anywhere.append((order, conditions))

    def __call__(self, doc: Any) -> Any:
        found: list[tuple[int, int, int]] = []  # (rule, span start, token): the ruler's order
        by_lower, by_tag, anywhere = self._by_lower, self._by_tag, self._anywhere
        for token in doc:
            i = token.i
            for candidates in (by_lower.get(token.lower_, ()), by_tag.get(token.tag_, ()), anywhere):
                for order, conditions in candidates:
                    for attribute, accepted, refused in conditions:
                        value = getattr(token, attribute)
                        if (accepted is not None and value not in accepted) or (
                            refused is not None and value in refused
                        ):
                            break
                    else:
                        found.append((order, i, i))
        strings = doc.vocab.strings
        for match_id, start, end in self._matcher(doc, allow_missing=True):
            order = int(strings[match_id])
            index = self._indices[order]
            found.append((order, start, start + index if index >= 0 else end + index))
        if found:
            from spacy.tokens._retokenize import set_token_attrs

            found.sort()
            for order, _, i in found:
                set_token_attrs(doc[i], self._attrs[order])
        return doc


def _conditions(pattern: list[dict[str, Any]]) -> list[Condition] | None:
    """A one-token pattern as conditions on the token, or None for what only a Matcher reads.

    >>> _conditions([{"TAG": "VBZ", "DEP": {"NOT_IN": ["det"]}}])
    [('tag_', frozenset({'VBZ'}), None), ('dep_', None, frozenset({'det'}))]
    >>> _conditions([{"LOWER": "gon"}, {"LOWER": "na"}]) is None
    True
    """
    if len(pattern) != 1 or not pattern[0]:
        return None
    conditions: list[Condition] = []
    for key, spec in pattern[0].items():
        if key not in _ATTRIBUTES:
            return None
        if isinstance(spec, str | bool):
            conditions.append((_ATTRIBUTES[key], frozenset([spec]), None))
        elif isinstance(spec, dict) and len(spec) == 1 and set(spec) <= {"IN", "NOT_IN"}:
            (how, values), = spec.items()
            values = frozenset(values)
            conditions.append((_ATTRIBUTES[key], values, None) if how == "IN" else (_ATTRIBUTES[key], None, values))
        else:
            return None
    return conditions
