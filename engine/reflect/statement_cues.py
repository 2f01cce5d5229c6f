"""The word lists English statements are read with (`engine.reflect.statements`): who speaks,
what hedges, reports or conditions a statement, which verbs carry their object in a
complement, which words are reactions, modals, irregular pasts."""

from __future__ import annotations

from engine.reflect.patterns import Patterns
from engine.reflect.word_lists import WordLists

_WORDS = WordLists("statement_cues")
_PATTERNS = Patterns("statement_cues")

__all__ = [
    "ADVERB_PARTICLES",
    "PARTICLE_ADVERBS",
    "AMOUNTS",
    "ASPECT",
    "CHANGES",
    "CHOOSING",
    "COLLEAGUES",
    "CONDITIONS",
    "CONTROL",
    "EVENTS",
    "FAN",
    "HOMEWARD",
    "FUTURE_AUX",
    "GROUPS",
    "HEDGE_AUX",
    "HEDGE_WORDS",
    "CAUSATIVE",
    "INTENT",
    "INTERJECTIONS",
    "IRREGULAR_PAST",
    "LIKING",
    "LIGHT_VERBS",
    "MODALS",
    "NOT_EMPLOYED",
    "NOT_OBJECT_LINKS",
    "OTHER",
    "PEOPLE",
    "PLANNED",
    "QUESTION_WORDS",
    "REACTIONS",
    "REPORT",
    "SPEECH",
    "REQUEST",
    "ROLE_VERBS",
    "SPEAKER",
    "TAG_QUESTION",
    "THINK",
    "TIME_LINKS",
    "WISH",
]

SPEAKER = _WORDS("speaker")
OTHER = _WORDS("other")
GROUPS = _WORDS("groups")
PEOPLE = SPEAKER | OTHER | {"him", "her", "them"}  # who can be told to do something
INTERJECTIONS = _WORDS("interjections")
HEDGE_WORDS = _WORDS("hedge_words")
HEDGE_AUX = _WORDS("hedge_aux")
THINK = _WORDS("think")
REPORT = _WORDS("report")
SPEECH = _WORDS("speech")
WISH = _WORDS("wish")
CONDITIONS = _WORDS("conditions")
QUESTION_WORDS = _WORDS("question_words")
TAG_QUESTION = _PATTERNS("tag_question")
AMOUNTS = _WORDS("amounts")
TIME_LINKS = _WORDS("time_links")
# Prepositions of time or manner ("since our last chat") are not what a verb is about.
NOT_OBJECT_LINKS = TIME_LINKS | _WORDS("manner_links")
FAN = _WORDS("fan")
CHANGES = _WORDS("changes")
HOMEWARD = _WORDS("homeward")
CHOOSING = _WORDS("choosing")
PLANNED = _WORDS("planned")
EVENTS = _WORDS("events")
LIKING = _WORDS("liking")
CAUSATIVE = _WORDS("causative")
REQUEST = _WORDS("request")
INTENT = _WORDS("intent")
NOT_EMPLOYED = _WORDS("not_employed")
COLLEAGUES = _WORDS("colleagues")
ROLE_VERBS = _WORDS("role_verbs")
ADVERB_PARTICLES = _WORDS("adverb_particles")
PARTICLE_ADVERBS = _WORDS("particle_adverbs")
CONTROL = _WORDS("control")
LIGHT_VERBS = _WORDS("light_verbs")
ASPECT = _WORDS("aspect")
REACTIONS = _WORDS("reactions")
MODALS = _WORDS("modals")
IRREGULAR_PAST = _WORDS("irregular_past")
FUTURE_AUX = _WORDS("future_aux")
# A negated verb that states the opposite liking: "can't stand X", "can't bear X".
NEGATED_MEANS = {"stand": "dislikes", "bear": "dislikes"}
