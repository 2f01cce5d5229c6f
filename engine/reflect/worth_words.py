"""The words `engine.reflect.worth` judges a statement by: verbs of a life, pastimes, what is
worth having, light verbs and abstract heads."""

from __future__ import annotations

from engine.reflect.word_lists import WordLists

_WORDS = WordLists("worth_words")

__all__ = [
    "ABSTRACT", "DOINGS", "DOING_LINKS", "GOTTEN", "HAD", "HOBBIES", "KIN", "LIGHT", "LINKED", "OWNED", "PETS", "TAKEN",
    "WANTS_OBJECT",
]  # fmt: skip

DOINGS = _WORDS("doings")
DOING_LINKS = _WORDS("doing_links")
KIN = _WORDS("kin")
PETS = _WORDS("pets")
# What one gets and then has: "I got a puppy" has one.
GOTTEN = PETS | frozenset({"car", "bike", "motorcycle", "house", "apartment"})
OWNED = _WORDS("owned")
# Heads "has" is worth a fact of: the above, and what "I have X" says of a person ("I have a
# degree", "I have a tattoo"), where "my store is busy" may be where they work.
HAD = KIN | PETS | OWNED | frozenset({
    "sister", "brother", "motorcycle", "apartment", "farm", "store", "company", "degree", "allergy",
    "condition", "diabetes", "asthma", "tattoo", "tattoos",
    "孩子", "孩子们", "儿子", "女儿", "妻子", "老婆", "丈夫", "老公", "狗", "猫", "宠物", "车", "房子",
})  # fmt: skip
HOBBIES = _WORDS("hobbies")
# Verbs that say something only with some prepositions: "went to", "went on a road trip",
# "working on a website", but not "went through a phase" or "went in a short period".
LINKED = {"go": frozenset({"go_to", "go_on"}), "work": frozenset({"work_on", "work_with", "work_from", "work_for"})}
TAKEN = _WORDS("taken")


LIGHT = _WORDS("light")
ABSTRACT = _WORDS("abstract")
WANTS_OBJECT = _WORDS("wants_object")
