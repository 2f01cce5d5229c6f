"""The word lists English statements are read with (`engine.reflect.statements`): who speaks,
what hedges, reports or conditions a statement, which verbs carry their object in a
complement, which words are reactions, modals, irregular pasts."""

from __future__ import annotations

import re

__all__ = [
    "ADVERB_PARTICLES",
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

# "we" in a chat is the speaker's family, team or friends: what they did, the speaker did.
SPEAKER = frozenset({"i", "me", "we", "us"})
OTHER = frozenset({"you"})
# "our team", "my family": the speaker's side, as "we" is.
GROUPS = frozenset({"team", "family", "company", "startup", "lab", "group", "band", "household"})
PEOPLE = SPEAKER | OTHER | {"him", "her", "them"}  # who can be told to do something
INTERJECTIONS = frozenset({
    "yep", "yeah", "yes", "nope", "no", "wow", "lol", "haha", "omg", "ok", "okay", "hey", "hi",
    "thanks", "oh", "ah", "aw", "aww", "hmm", "hmmm", "sure", "totally", "congrats", "bye", "nah",
    "btw", "fyi", "tbh", "imo", "imho",
})  # fmt: skip
HEDGE_WORDS = frozenset({"maybe", "perhaps", "probably", "possibly"})
HEDGE_AUX = frozenset({"might", "may", "could", "would", "should"})
THINK = frozenset({"think", "guess", "suppose", "believe", "feel"})
REPORT = frozenset({"say", "tell", "ask", "mention", "write", "claim"})
# Verbs of conversation: "I'd like to chat about my studies" wishes to talk, not to have studies.
SPEECH = frozenset({"talk", "chat", "discuss", "tell", "ask", "mention", "vent", "explain", "describe", "update"})
WISH = frozenset({"wish", "hope", "imagine", "dream", "pretend"})
CONDITIONS = frozenset({"if", "unless", "whether"})
QUESTION_WORDS = frozenset({"what", "who", "whom", "which", "why", "how", "where", "when"})
# "I started my own store - pretty cool, huh?": the tag asks for agreement, not for an answer.
TAG_QUESTION = re.compile(
    r"[,;\-–—]\s*(?:\w+\s+){0,2}(?:huh|right|eh|ya know|you know|isn't it|wasn't it)\s*\?+$",
    re.IGNORECASE,
)
AMOUNTS = frozenset({"lot", "lots", "bit", "ton", "tons"})  # "reading a lot": how much, not what
# Prepositions of time: "since our last chat", "the day before yesterday" link no thing.
TIME_LINKS = frozenset({"since", "after", "before", "during", "until", "till"})
# Prepositions of time or manner: "since our last chat" is not what a verb is about.
NOT_OBJECT_LINKS = TIME_LINKS | frozenset({
    "without", "than", "like", "as", "besides", "except", "despite", "among", "including", "between",
})  # fmt: skip
# "a big fan of jazz", "a love for horses", "take care of the dogs", "take a look at the
# sunset": the object that counts is the prepositional one after the noun
FAN = frozenset({"fan", "lover", "admirer", "love", "passion", "care", "track", "look", "connection"})
CHANGES = frozenset({"switch", "change", "move", "migrate", "upgrade", "convert", "transfer"})
HOMEWARD = frozenset({"take", "bring", "come", "get", "head"})  # "take them all home": where to, no home had
# What "decided to ..." chooses ("decided to go with PostgreSQL", "to use Kubernetes"); any
# other verb after it is a plan ("decided to run for office"), not a thing decided.
CHOOSING = frozenset({"use", "go", "choose", "pick", "settle", "opt", "stick"})
# What "I'll ..." plans: going, getting, starting, trying; "I will incorporate this" is no plan.
PLANNED = frozenset({
    "visit", "go", "travel", "buy", "adopt", "try", "start", "join", "move", "attend",
    "learn", "see", "run", "apply", "book", "fly", "head", "begin", "open", "launch", "build",
    "host", "throw", "sign", "enroll", "register", "switch", "quit", "leave", "study",
})  # fmt: skip
# What one looks forward to that is a plan: "can't wait for our hike".
EVENTS = frozenset({
    "hike", "trip", "concert", "wedding", "party", "game", "show", "festival", "vacation",
    "holiday", "race", "marathon", "class", "visit", "tour", "camp", "match", "tournament",
    "performance", "recital", "graduation", "reunion", "cruise", "flight", "move", "launch",
})  # fmt: skip
LIKING = frozenset({"like", "love", "enjoy", "hate", "prefer"})
# "determined to find", "eager to start": what the speaker means to do
# Verbs that make someone do something: "it helps me relax", "makes me think of", "allows me to
# express": what they do then is the cause's doing, not a fact of them.
CAUSATIVE = frozenset({"make", "help", "let", "allow", "remind", "enable", "force", "get", "encourage"})
# Verbs that ask something of someone: "they asked me to be a mentor" is not yet so.
REQUEST = frozenset({"ask", "invite", "want", "expect", "tell", "beg", "urge", "need"})
INTENT = frozenset({"determined", "eager", "keen", "set", "resolved", "committed", "need", "tempt", "die"})
# "I'm a <noun> at <Name>" says where one works, but not of these: "a student at MIT".
NOT_EMPLOYED = frozenset({
    "student", "fan", "member", "guest", "regular", "customer", "visitor", "patient", "volunteer",
    "tourist", "user", "attendee", "speaker", "winner", "finalist",
})  # fmt: skip
# People one works with, not tools one uses: "I work with awesome mechanics".
COLLEAGUES = frozenset({
    "mechanic", "people", "colleague", "coworker", "friend", "kid", "child", "student", "client",
    "customer", "volunteer", "team", "teammate", "artist", "designer", "engineer", "doctor",
    "nurse", "teacher", "partner", "group", "family", "animal", "dog", "horse",
    "organization", "organisation", "company", "charity", "nonprofit", "agency", "school", "club",
    "community", "shelter", "foundation", "pal", "buddy", "classmate", "neighbor", "neighbour",
    "sibling", "cousin", "boss", "manager", "mentor", "coach",
})  # fmt: skip
ROLE_VERBS = frozenset({"work", "start", "join", "serve"})  # "... as a data engineer"
ADVERB_PARTICLES = frozenset({"back", "home"})  # not "away": "away from the court" is no visit
# Verbs whose clause complement carries the object: "plan to adopt", "love to paint". The
# first set also names the predicate (plans_to, likes); the second leaves it to the complement
# ("started caring about X" is care_about).
CONTROL = frozenset({
    "plan", "intend", "aim", "hope", "want", "wish", "decide", "like", "love", "enjoy", "hate",
    "prefer", "choose",
})  # fmt: skip
LIGHT_VERBS = frozenset({"make", "do", "have", "get", "see", "try", "go", "be", "know"})
ASPECT = frozenset({"need", "try", "start", "begin", "keep", "go", "continue", "stop", "get"})
# Words that open a reaction to what the other party said ("Glad you ...", "So cool you ...");
# the tagger sometimes reads a capitalised "Glad" as a name.
REACTIONS = frozenset({"glad", "great", "cool", "nice", "awesome", "happy", "lucky", "wow", "congrats"})
MODALS = frozenset({"can", "could", "should", "must", "might", "may", "ca", "shall", "would", "'d"})
IRREGULAR_PAST = frozenset({
    "lost", "got", "went", "had", "made", "took", "saw", "found", "met", "bought", "felt",
    "came", "left", "began", "ran", "won", "gave", "told", "brought", "built", "caught", "drew",
    "drove", "ate", "fell", "flew", "grew", "heard", "kept", "knew", "led", "paid", "rode",
    "sang", "sent", "sold", "spent", "swam", "taught", "thought", "threw", "wore", "wrote",
})  # fmt: skip
FUTURE_AUX = frozenset({"will", "would", "'ll", "'d", "wo", "gon"})
# A negated verb that states the opposite liking: "can't stand X", "can't bear X".
NEGATED_MEANS = {"stand": "dislikes", "bear": "dislikes"}
