"""The wording Chinese statements are read by (`engine.reflect.statements_zh`): the verbs and
the predicates they name, who speaks, what negates, hedges, conditions or only plans a
statement, and the forms that carry their own predicate."""

from __future__ import annotations

import re

from engine.reflect.patterns import Patterns
from engine.reflect.word_lists import WordLists

_WORDS = WordLists("zh_cues")
_PATTERNS = Patterns("zh_cues")

__all__ = [
    "ADVERBS", "ALLERGY", "CONDITION", "CONTROL", "COORDINATION", "EMPLOYEE", "ENDED", "FAN", "FAVOURITE",
    "FAVOURITE_AFTER", "FOR_NOW", "HEDGE", "HOME", "JOB_CHANGE", "JUMP", "KIN", "LOST", "LOST_INTEREST", "LEAD_WORDS", "MODAL", "NAMED", "NEGATION", "PAST", "PLACE",
    "NOT_SINCE", "NOW_AT", "PLACE_OF", "PLAN_VERB", "PREDICATE_OF", "PRONOUNS", "QUESTION", "RESIGNED", "ROLE",
    "SPEECH_AFTER", "STOPPED_IT", "SUBJECT", "SWAP", "TOPIC_STOPPED", "TRAINING",
    "VERB", "SWAP_FROM", "REPLACED", "RELATIVE", "UNDECIDED", "WITH_LISTENER", "FOR_ANOTHER", "PASTIME_AFTER", "AS_OBJECT",
]  # fmt: skip

_VERBS = _WORDS.table("verbs")
PREDICATE_OF = {verb: predicate for predicate, verbs in _VERBS.items() for verb in verbs}
# One alternation, longest first: at one place the longest form wins.
VERB = re.compile("|".join(sorted(PREDICATE_OF, key=len, reverse=True)))
CONTROL = _WORDS("control")

SUBJECT = _PATTERNS("subject")
KIN = _PATTERNS("kin")
ROLE = _PATTERNS("role")
PLACE = _PATTERNS("place")
# The predicate of the verb a place is found by (`PLACE`).
PLACE_OF = {verb: predicate for predicate, verbs in _WORDS.table("place_of").items() for verb in verbs}
FAVOURITE = _PATTERNS("favourite")
FAVOURITE_AFTER = _PATTERNS("favourite_after")
FAN = _PATTERNS("fan")
ALLERGY = _PATTERNS("allergy")
TRAINING = _PATTERNS("training")
NAMED = _PATTERNS("named")

NEGATION = _PATTERNS("negation")
ADVERBS = _PATTERNS("adverbs")
MODAL = _PATTERNS("modal")
ENDED = _PATTERNS("ended")
RESIGNED = _PATTERNS("resigned")
NOW_AT = _PATTERNS("now_at")
NOT_SINCE = _PATTERNS("not_since")
JUMP = _PATTERNS("jump")
HOME = _PATTERNS("home")
STOPPED_IT = _PATTERNS("stopped_it")
TOPIC_STOPPED = _PATTERNS("topic_stopped")
SWAP = _PATTERNS("swap")
SWAP_FROM = _PATTERNS("swap_from")
REPLACED = _PATTERNS("replaced")
RELATIVE = _PATTERNS("relative")
UNDECIDED = _PATTERNS("undecided")
WITH_LISTENER = _PATTERNS("with_listener")
FOR_ANOTHER = _PATTERNS("for_another")
PASTIME_AFTER = _PATTERNS("pastime_after")
AS_OBJECT = _PATTERNS("as_object")
LOST = _PATTERNS("lost")
EMPLOYEE = _PATTERNS("employee")
FOR_NOW = _PATTERNS("for_now")
LOST_INTEREST = _PATTERNS("lost_interest")
JOB_CHANGE = _PATTERNS("job_change")
PAST = _PATTERNS("past")
HEDGE = _PATTERNS("hedge")
QUESTION = _PATTERNS("question")
CONDITION = _PATTERNS("condition")
COORDINATION = _PATTERNS("coordination")
SPEECH_AFTER = _PATTERNS("speech_after")
LEAD_WORDS = _WORDS("lead_words")
PLAN_VERB = _PATTERNS("plan_verb")
PRONOUNS = _WORDS("pronouns")
