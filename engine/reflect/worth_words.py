"""The words `engine.reflect.worth` judges a statement by: verbs of a life, pastimes, what is
worth having, light verbs and abstract heads."""

from __future__ import annotations

__all__ = [
    "ABSTRACT", "DOINGS", "DOING_LINKS", "GOTTEN", "HAD", "HOBBIES", "KIN", "LIGHT", "LINKED", "OWNED", "PETS", "TAKEN",
    "WANTS_OBJECT",
]  # fmt: skip

# Verb lemmas whose statements tell what a person does with their life, in either language's
# predicate names (`engine.reflect.zh_cues` uses the same).
DOINGS = frozenset({
    "play", "learn", "study", "teach", "coach", "collect", "adopt", "volunteer", "paint", "draw",
    "write", "build", "train", "join", "start", "read", "speak", "cook", "bake", "finish", "win",
    "compete", "perform", "travel", "visit", "run", "sign", "enroll", "graduate", "quit", "lead",
    "buy", "sell", "drive", "ride", "listen", "watch", "switch", "climb", "hike", "swim", "dance",
    "sing", "practice", "practise", "donate", "organize", "organise", "host", "launch", "open",
    "create", "fly", "research", "apply", "marry", "date", "allergic", "eat", "work", "go",
    "try", "does", "grow", "knit", "sew", "fish", "ski", "surf", "camp", "record",
    "publish", "design", "invest", "renovate", "plant", "foster", "rescue", "mentor", "tutor",
    "attend", "considers", "stressed", "passionate", "interested", "involved", "excited",
    "nervous", "worried", "afraid", "scared",
})  # fmt: skip
DOING_LINKS = frozenset({"get_into", "get_back_from", "sign_up_for", "broke_up_with"})  # "getting into cooking"
# Who and what a person has that a profile keeps, also when only "my X" says so
# (`engine.reflect.stances`): their family, their pets, what they own and what they run.
KIN = frozenset({
    "kid", "kids", "child", "children", "son", "sons", "daughter", "daughters", "wife", "husband",
    "partner", "boyfriend", "girlfriend", "fiance", "fiancee", "baby", "twins",
})  # fmt: skip
PETS = frozenset({"dog", "dogs", "cat", "cats", "puppy", "kitten", "pet", "pets", "horse", "parrot", "rabbit", "hamster"})
# What one gets and then has: "I got a puppy" has one.
GOTTEN = PETS | frozenset({"car", "bike", "motorcycle", "house", "apartment"})
OWNED = frozenset({
    "car", "bike", "house", "garden", "business", "shop", "bakery", "startup", "band", "podcast",
    "blog", "channel",
})  # fmt: skip
# Heads "has" is worth a fact of: the above, and what "I have X" says of a person ("I have a
# degree", "I have a tattoo"), where "my store is busy" may be where they work.
HAD = KIN | PETS | OWNED | frozenset({
    "sister", "brother", "motorcycle", "apartment", "farm", "store", "company", "degree", "allergy",
    "condition", "diabetes", "asthma", "tattoo", "tattoos",
    "孩子", "孩子们", "儿子", "女儿", "妻子", "老婆", "丈夫", "老公", "狗", "猫", "宠物", "车", "房子",
})  # fmt: skip
# What "does" and "went X-ing" keep: pastimes ("I've been surfing", "we went biking", "去徒步"), by lemma;
# "I'm plowing through", "hoping for news", "spending time" are none.
HOBBIES = frozenset({
    "surf", "swim", "paint", "draw", "hike", "bike", "cycle", "run", "jog", "ski", "snowshoe",
    "snowboard", "climb", "dance", "sing", "cook", "bake", "read", "write", "knit", "crochet",
    "sew", "quilt", "garden", "fish", "camp", "skate", "skateboard", "kayak", "sail", "row",
    "travel", "volunteer", "practice", "meditate", "meditation", "box", "golf", "bowl", "hunt",
    "photograph", "journal", "sculpt", "pottery", "yoga", "fence", "ride", "backpack", "canoe",
    "dive", "scuba", "birdwatch", "stargaze", "game", "sketch", "compose", "film", "blog",
    "rock climbing", "mountain climbing", "horseback riding", "bird watching", "skiing",
    "snorkel", "train", "exercise", "work out", "lift", "walk",
    "徒步", "攀岩", "划皮艇", "皮划艇", "划船", "滑雪", "游泳", "跑步", "爬山", "登山", "露营", "钓鱼",
    "骑行", "骑车", "冲浪", "潜水", "健身", "瑜伽", "跳舞", "唱歌", "画画", "摄影", "旅行", "旅游", "散步",
    "滑冰", "打球", "打篮球", "踢球", "踢足球", "打网球", "打羽毛球",
})  # fmt: skip
# Verbs that say something only with some prepositions: "went to", "went on a road trip",
# "working on a website", but not "went through a phase" or "went in a short period".
LINKED = {"go": frozenset({"go_to", "go_on"}), "work": frozenset({"work_on", "work_with", "work_from", "work_for"})}
TAKEN = frozenset({"class", "classes", "lesson", "lessons", "course", "courses", "trip", "workshop", "课"})


# Verbs that say little whatever their object: "brought souvenirs", "found ways", "took shots".
LIGHT = frozenset({
    "make", "have", "do", "get", "give", "put", "bring", "share", "find", "feel", "spend", "keep",
    "form", "handle", "trust", "deal", "rely", "show", "face", "need", "talk", "tell", "say",
    "use", "appreciate", "thank", "miss", "mean", "remind", "consider", "hear", "notice",
    "realize", "remember", "forget", "understand", "enjoy", "check", "catch", "hold", "let",
    "focus", "push", "pass", "reach", "receive", "send", "see", "look", "call", "meet", "help",
})  # fmt: skip
# Heads that name no thing one could point at: "had trouble", "raised awareness".
ABSTRACT = frozenset({
    "trouble", "issue", "issues", "problem", "problems", "battle", "connection", "connections",
    "memory", "memories", "awareness", "talent", "talents", "ability", "abilities", "progress",
    "dream", "dreams", "thought", "thoughts", "idea", "ideas", "state", "lesson", "lessons",
    "emotion", "emotions", "challenge", "challenges", "goal", "goals", "skill", "skills", "life",
    "confidence", "courage", "peace", "balance", "boundary", "boundaries", "growth", "effect",
    "decision", "decisions", "choice", "choices", "step", "steps", "phase", "period", "situation",
    "attention", "effort", "efforts", "interest", "interests", "inspiration", "motivation",
    "purpose", "meaning", "perspective", "outlook", "mindset", "knowledge", "insight",
    "insights", "result", "results", "success", "failure", "risk", "risks", "aspect", "aspects",
    "feeling", "sense", "value", "values", "relationship", "relationships", "bond", "bonds",
    "commitment", "patience", "kindness", "compassion", "responsibility", "gratitude", "hope",
    "fear", "fears", "stress", "anxiety", "pain", "loss", "grief", "pressure", "fun", "blast",
    "break", "rest", "care", "stuff", "note", "notes", "shot", "shots", "sight", "view", "views",
    "sound", "work", "project", "projects", "opportunity", "opportunities", "approach", "way",
    "app", "apps", "resource", "resources", "method", "methods", "tool", "tools", "technique",
    "techniques", "strategy", "strategies", "charm", "community", "information", "option", "options",
    "change", "changes", "experience", "experiences",
    "path", "paths", "solution", "solutions", "world", "environment", "journey", "influence",
    "serenity", "vision", "spot", "snag", "hobby", "hobbies", "thing", "things", "reason", "reasons",
    "theme", "structure", "mix", "beauty", "rush", "support", "inclusivity", "boldness",
    "creativity", "company", "trend", "trends", "portion", "distance", "plan", "plans", "planning",
    "moment", "moments", "escape", "destination",
})  # fmt: skip
# Verbs that, beside the light ones (`LIGHT`), say nothing of a liking without their object:
# "I love playing" (what?), "I enjoy watching our pets play", "I like to relax by reading".
WANTS_OBJECT = frozenset({
    "play", "watch", "listen", "sink", "escape", "experiment", "chill", "relax", "lounge", "learn",
    "create", "try", "work", "sit", "take", "go", "explore", "discover", "capture",
})  # fmt: skip
