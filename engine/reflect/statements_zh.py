"""Statements in Chinese sentences, from their wording and jieba's cuts. Pure but for jieba.

The speaker's ("我", "我们", "我们团队") and the other party's ("你") statements: likes and
dislikes ("我喜欢X", "我受不了X", "我是X的粉丝"), work and home ("我在X工作", "我住在X",
"我在X做产品经理", "搬到X", "入职X", "离开X"), plans and wishes ("我打算买X", "我很想去X"),
what they attended, use, learn, read, buy, adopt, teach, speak, sell, "我对X过敏", and a
favourite of a kind ("我最喜欢的运动是X", "X是我最喜欢的书"), a taste ended ("我戒了咖啡",
"我不再喝咖啡了"). A clause without a subject
takes the one before it in its sentence ("我们搬家了，现在住在上海"). Every item of a
coordination is an object ("喜剧和爱情片"); "一只叫饼干的救助犬" is 饼干, "悉尼的一份研究工作"
is 研究工作. Questions, conditionals, wishes and what may, can or should be ("可以", "应该")
state nothing, nor does a liking of the past ("我以前很喜欢X"); "可能 / 也许 / 大概" mark a
statement as hedged. The cues are `engine.reflect.zh_cues`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from engine.reflect.vocabulary import Statement
from engine.reflect.word_lists import WordLists
from engine.reflect.worth_words import HOBBIES
from engine.reflect.zh_cues import (
    ADVERBS,
    ALLERGY,
    AS_OBJECT,
    CONDITION,
    CONTROL,
    COORDINATION,
    EMPLOYEE,
    ENDED,
    FAN,
    FAVOURITE,
    FAVOURITE_AFTER,
    FOR_ANOTHER,
    FOR_NOW,
    HEDGE,
    HOME,
    JOB_CHANGE,
    JUMP,
    KIN,
    LEAD_WORDS,
    LOST,
    LOST_INTEREST,
    MODAL,
    NAMED,
    NEGATION,
    NOT_SINCE,
    NOW_AT,
    PAST,
    PASTIME_AFTER,
    PLACE,
    PLACE_OF,
    PLAN_VERB,
    PREDICATE_OF,
    PRONOUNS,
    QUESTION,
    RELATIVE,
    REPLACED,
    RESIGNED,
    ROLE,
    SPEECH_AFTER,
    STOPPED_IT,
    SUBJECT,
    SWAP,
    SWAP_FROM,
    TOPIC_STOPPED,
    TRAINING,
    UNDECIDED,
    VERB,
    WITH_LISTENER,
)
from engine.text import split_sentences

_WORDS = WordLists("statements_zh")

__all__ = ["chinese_statements"]


@lru_cache(maxsize=1)
def _posseg() -> Any:
    from engine.text import _jieba

    _jieba()
    import jieba.posseg

    return jieba.posseg


@lru_cache(maxsize=8192)
def _cuts(text: str) -> tuple[tuple[str, str], ...]:
    """jieba's words and tags; an object's words are asked for several times."""
    return tuple((pair.word, pair.flag) for pair in _posseg().cut(text))


def _alone(text: str) -> set[int]:
    """Where a one-character verb stands as a word of its own: a one-character word, one with
    its particle ("卖了", "读过"), a wish or plan with the direction jieba joins to it ("想去",
    "要来": the verb that follows is what is wished), or after a negation jieba joins to it
    ("不吃"); not the "读" of "读书会".

    >>> sorted(_alone("想去学游泳")), sorted(_alone("读书会"))
    ([0, 2], [])
    """
    places, at = set(), 0
    for word, _ in _cuts(text):
        if len(word) == 1 or (len(word) == 2 and word[1] in "了过着"):
            places.add(at)
        elif len(word) == 2 and word[1] in "去来" and PREDICATE_OF.get(word[0]) in CONTROL:
            places.add(at)
        elif len(word) == 2 and word[0] in "不没":
            places.add(at + 1)
        at += len(word)
    return places


def _objects(text: str, *, control: bool) -> list[str]:
    """The things `text` (what follows a verb) names: each item of a coordination, without
    counts, time words, a leading verb of a plan ("想去看富士山": 富士山) or a relative
    clause before "的"; "叫X的Y" is X, "《X》" is X."""
    text = re.split(r"[：:，,。！？!?；;]", text)[0]
    text = re.sub(r"(?:了|过|吧|啊|呢|呀|哈|哦|的)+$", "", text)
    if pastime := PASTIME_AFTER.match(text):
        text = pastime["place"]  # "去日本玩": Japan, not "日本玩"
    if "是" in text:
        return []  # "我去东京的航班是6月3日": a description, not what the verb is about
    if named := NAMED.search(text):
        return [named["name"]]
    if title := re.search(r"《(?P<title>[^》]+)》", text):
        return [title["title"]]  # a book's or a film's title is whole
    text = _lead_stripped(text)
    verb = PLAN_VERB.match(text)
    first = _cuts(text)[0][0] if text else ""
    if control and verb is not None and (len(first) <= verb.end() or first[verb.end() :] in _MEASURES):
        text = _lead_stripped(text[max(verb.end(), len(first)) :])  # not "跑步" to 步: the verb is part of a word; "买台" is 买
    if latin := re.match(r"^([A-Za-z][A-Za-z0-9/&.+-]*)[\u4e00-\u9fff]+[A-Za-z]", text):
        return [latin.group(1)]  # "Kubernetes部署Orion": the first name, the rest is another clause
    text = _until_function_verb(text)
    items = []
    for part in _coordinated(text.rsplit("的", 1)[-1]):
        part = _until_clause(_lead_stripped(part)).strip("《》“”\"' ")
        if part and part not in PRONOUNS and part[0] not in "我你他她它" and not part.isdigit() and _names(part):
            items.append(part)
    return items


def _coordinated(text: str) -> list[str]:
    """The items of a coordination ("喜剧和爱情片"), split where jieba cuts a conjunction of
    its own: "协和医院" is one name."""
    parts, at, start = [], 0, 0
    for word, _ in _cuts(text):
        if COORDINATION.fullmatch(word):
            parts.append(text[start:at])
            start = at + len(word)
        at += len(word)
    return [*parts, text[start:]]


def _lead_stripped(text: str) -> str:
    """Without the counts, time words, pronouns, particles and adverbs jieba finds before a
    noun ("一张", "下个月", "我的", "也"); "会议" keeps its "会"."""
    at = 0
    for word, flag in _cuts(text):
        count = flag == "m" and re.search(r"[\d一两二三四五六七八九十几半每百千万]", word) is not None
        if not (count or flag in _LEADING or word in LEAD_WORDS or (flag == "d" and ADVERBS.fullmatch(word))):
            break
        at += len(word)
    return text[at:]


def _names(part: str) -> bool:
    """Two characters or more, a Latin name, or a one-character noun ("猫", "车")."""
    return len(part) >= 2 or part.isascii() or _cuts(part)[0][1][:1] in ("n", "z")


_BREAKS = _WORDS("breaks")
_MEASURES = _WORDS("measures")
_PURPOSE_VERBS = _WORDS("purpose_verbs")
_LEADING = _WORDS("leading")


def _until_function_verb(text: str) -> str:
    """"PostgreSQL做Atlas的后端" -> "PostgreSQL": "做", "用", "给" after a word start what
    it is for."""
    at = 0
    for n, (word, flag) in enumerate(_cuts(text)):
        if n and flag.startswith("v") and word in _BREAKS:
            return text[:at]
        at += len(word)
    return text


def _until_clause(text: str) -> str:
    """"素已经五年" -> "素", "部署Orion": a verb or an adverb after a word starts another clause,
    and after a place a verb of one character that says what one goes there for ("马尼拉看我爷爷奶奶")."""
    cuts, at = _cuts(text), 0
    for n, (word, flag) in enumerate(cuts):
        purpose = word in _PURPOSE_VERBS and at >= 2  # "马尼拉看我爷爷奶奶": where, then what for
        if n and n < len(cuts) - 1 and ((flag == "v" and (len(word) >= 2 or purpose)) or flag == "d"):
            return text[:at]
        at += len(word)
    return text


def _statement(
    kind: str, who: str, predicate: str, obj: str, whole: str, *, rule: str, negated: bool = False, cue: str = ""
) -> Statement:
    """A statement read by the rule named `rule` ("zh." and the form it read), by the words `cue`."""
    return Statement(subject_kind=kind, subject=who, predicate=predicate, object=obj,
                     object_key=obj.lower(), negated=negated, hedged=HEDGE.search(whole) is not None,
                     sentence=whole, rule=rule, cue=cue)  # fmt: skip


def _structures(kind: str, who: str, after: str, whole: str) -> list[Statement] | None:
    """The forms that name their own predicate: favourites, fans, allergies, training, a
    place of work or home ("在X工作"), a role ("做产品经理"). None when none is there."""
    if favourite := FAVOURITE.search(after):  # one value per kind (engine/reflect/reconcile.py)
        return [_statement(kind, who, f"favorite_{favourite['kind']}", o, whole, rule="zh.favourite")
                for o in _objects(favourite["object"], control=True)]  # fmt: skip
    for pattern, predicate, rule in ((FAN, "likes", "zh.fan"), (EMPLOYEE, "works_at", "zh.employee"),
                                     (ALLERGY, "allergic_to", "zh.allergy"), (TRAINING, "train_for", "zh.training")):
        if found := pattern.search(after):
            negated = _negated(after[: found.start()])  # "我已经不是周杰伦的粉丝了"
            return [_statement(kind, who, predicate, o, whole, rule=rule, negated=negated)
                    for o in _objects(found["object"], control=False)]  # fmt: skip
    if resigned := RESIGNED.search(after):
        left = resigned["old"] or resigned["last"] or resigned["gone"] or resigned["told"]
        return [_statement(kind, who, "left", o, whole, rule="zh.resigned") for o in _objects(left, control=False)]
    if not_since := NOT_SINCE.search(after):
        return [_statement(kind, who, "quit", o, whole, rule="zh.not_since")
                for o in _objects(not_since["object"], control=False)]  # fmt: skip
    if swap := SWAP.search(after) or SWAP_FROM.search(after) or REPLACED.search(after):
        old = _given_up(swap)
        return [*(_statement(kind, who, "uses", o, whole, rule="zh.swap") for o in _objects(swap["new"], control=False)),
                *(_statement(kind, who, "quit", o, whole, rule="zh.swap") for o in (_objects(old, control=False) if old else []))]
    if jump := JUMP.search(after):
        return [*(_statement(kind, who, "works_at", o, whole, rule="zh.jump") for o in _objects(jump["new"], control=False)),
                *(_statement(kind, who, "left", o, whole, rule="zh.jump") for o in _objects(jump["old"], control=False))]
    if (ended := ENDED.match(after)) and not FOR_NOW.search(after):  # not "我今天不吃晚饭了"
        return [_statement(kind, who, "quit", o, whole, rule="zh.ended")
                for o in _objects(ended["object"] or ended["stopped"], control=False)]  # fmt: skip
    if lost := LOST_INTEREST.search(after):
        return [_statement(kind, who, "likes", o, whole, rule="zh.lost_interest", negated=True)
                for o in _objects(lost["object"], control=False)]  # fmt: skip
    if role := ROLE.match(_lead_stripped(after)):
        return [_statement(kind, who, "is", role["role"], whole, rule="zh.role")]
    if place := _place(after):
        if PAST.search(after[: place.start()]):
            return []  # "我小时候住在西安": where one was, not is
        at = [_statement(kind, who, PLACE_OF[place["verb"]], o, whole, rule="zh.place",
                         negated=_negated(after[: place.start()]))
              for o in _objects(place["place"], control=False)]  # fmt: skip
        rest = after[place.end():]
        if place["verb"] in ("做", "当") and (role := ROLE.match("做" + rest)):
            return [*at, _statement(kind, who, "is", role["role"], whole, rule="zh.role")]
        return at + (_verbs(kind, who, place["verb"] + rest, whole) if place["verb"] == "教" else [])
    return None


_SWAPPED_FOR = _WORDS("swapped_for")
_CHOICES = _WORDS("choices")
_NAME_CONTINUED = _WORDS("name_continued")


def _given_up(swap: re.Match[str]) -> str | None:
    """What a swap says is given up: the thing itself when it was swapped for the new one
    ("把苹果手机换成了…"). A thing moved ("把博客从WordPress迁到了Hugo") or one replaced
    ("用Linear替换了Trello") names where it is now, as English's "switched from X to Y" does."""
    groups = swap.groupdict()
    return groups.get("thing") if groups.get("verb") in _SWAPPED_FOR and not groups.get("old") else None


def _word_at(text: str) -> dict[int, tuple[str, str]]:
    """jieba's word and tag at each place a word of `text` starts."""
    at, words = 0, {}
    for word, flag in _cuts(text):
        words[at] = (word, flag)
        at += len(word)
    return words


def _noun_at(words: dict[int, tuple[str, str]], match: re.Match[str]) -> bool:
    word, flag = words.get(match.start(), ("", ""))
    return len(word) > 1 and word == match.group(0) and flag == "n"  # not "nr": jieba takes "爱喝" for a name


def _at_word_start(pattern: re.Pattern[str], text: str) -> bool:
    """Whether `pattern` is found where jieba starts a word: the "要是" of "主要是" is no "if"."""
    found = [m.start() for m in pattern.finditer(text)]
    if not found:
        return False  # most sentences: no cut needed
    starts = _word_at(text)
    return any(at in starts for at in found)


_WORK = _WORDS("work")
_NAME_TAGS = _WORDS("name_tags")  # jieba's tags a relative's name is cut with
_VERB_TAGS = _WORDS("verb_tags")  # jieba's tags of what may follow a name: a verb, an adverb
_BUSY = _WORDS("busy")


def _place(after: str) -> re.Match[str] | None:
    """"在X工作": a place and a verb of its own, not "在考虑" (the place would start with a
    verb), "站立式办公桌" (the verb would be part of a word) nor "在X工作的朋友" (another's)."""
    words = _word_at(after)
    for place in PLACE.finditer(after):
        word = words.get(place.start("verb"), ("", ""))[0]
        first = words.get(place.start("place"), ("", "v"))
        whole = place["verb"].startswith(word) or (word.startswith(place["verb"]) and len(word) <= len(place["verb"]) + 1)
        # a name jieba tags as a verb ("联想"), one word alone before a verb of work
        named = first[0] == place["place"] and place["verb"] in _WORK and first[0] not in _BUSY
        # jieba cuts an unknown name into the verb ("米哈/游报/到"): a verb of work ending the clause stands
        tail = after[place.end() :]
        cut_through = not word and place["verb"] in _WORK and (not tail or tail[0] in "了，。！？ ")
        a_place = (first[1] != "v" or named) and first[1] not in ("d", "ad")  # not "在努力工作": how, not where
        if (word and whole or cut_through) and a_place and not tail.startswith("的"):
            return place  # not "一个在阿里工作的朋友": where the friend works
    return None


def _negated(before: str) -> bool:
    return NEGATION.search(before.rstrip()) is not None


def _verbs(kind: str, who: str, after: str, whole: str) -> list[Statement]:
    """The statements of the table's verbs in `after`, left to right; a verb's object ends
    where the next verb starts, and a plan's ("打算", "想") takes the rest of the clause."""
    alone, words = _alone(after), _word_at(after)
    # "我的读书会": after "的" a verb is part of a noun, as is a word of two or more jieba tags a
    # noun ("迭代计划"; its tags of one character are not to be trusted: "学" is a noun to it)
    matches = [m for m in VERB.finditer(after) if (len(m.group(0)) > 1 or m.start() in alone)
               and not after[: m.start()].endswith("的") and not _noun_at(words, m)
               and after[: m.start()].count("《") == after[: m.start()].count("》")]  # not in a title
    found: list[Statement] = []
    for n, match in enumerate(matches):
        predicate = PREDICATE_OF[match.group(0)]
        before = after[: match.start()] if n == 0 else after[matches[n - 1].end() : match.start()]
        if n == 0 and (len(ADVERBS.sub("", before)) > 12 or MODAL.search(before) or WITH_LISTENER.match(before)):
            return []  # the verb is in another clause, what may or should be, or done with the other ("想约你一起加入")
        if PAST.search(before) and predicate in ("likes", "dislikes", "prefers", "lives_in", "works_at"):
            return []  # "我以前很喜欢爵士乐", "我小时候住在西安": no longer so
        control = predicate in CONTROL
        wished = after[match.end() :]
        if control and (SPEECH_AFTER.match(wished) or WITH_LISTENER.match(wished) or FOR_ANOTHER.match(wished)):
            return []  # "想和你聊聊工作的事", "想约你喝咖啡", "想让我讲路线图": a talk, an invitation, another's wish
        end = len(after) if control or n + 1 == len(matches) else matches[n + 1].start()
        if predicate == "go_to" and not control and n + 1 < len(matches):
            continue  # "去温布利看了演唱会": where they went for what they did
        negated = _negated(before)
        moved = re.search(r"把(?P<object>[^，。]{1,10})$", before)  # "把车卖了": the car
        objects = _objects(moved["object"] if moved else after[match.end() : end], control=control)
        going = match.group(0).startswith("去")  # "去徒步": a pastime gone to is done, not a place
        found += [_statement(kind, who, "go" if going and o in HOBBIES else predicate, o, whole, rule="zh.verb",
                             negated=negated, cue=match.group(0))
                  for o in objects]  # fmt: skip
        if control:
            break  # what follows is the plan's
    return found


def _clause(clause: str, whole: str, carried: tuple[str, str] | None) -> tuple[list[Statement], tuple[str, str] | None]:
    """The statements of a clause, and the subject the next clause takes when it has none."""
    if after_favourite := FAVOURITE_AFTER.search(clause):  # "《火星救援》是我最喜欢的书"
        return [_statement("speaker", "我", f"favorite_{after_favourite['kind']}", o, whole, rule="zh.favourite")
                for o in _objects(after_favourite["object"], control=True)], ("speaker", "我")  # fmt: skip
    if lost := LOST.match(clause):
        return [_statement("speaker", "我", "lost", lost["object"], whole, rule="zh.lost")], None
    if topic := TOPIC_STOPPED.match(clause):
        stopped = [_statement("speaker", "我", "quit", o, whole, rule="zh.topic_stopped")
                   for o in _objects(topic["object"], control=False)]  # fmt: skip
        return stopped, ("speaker", "我")
    if home := HOME.match(clause):
        return [_statement("speaker", "我", "lives_in", o, whole, rule="zh.home")
                for o in _objects(home["place"], control=False)], None  # fmt: skip
    if relative := RELATIVE.match(clause):
        return _kin_named(clause[relative.end() :], whole), None  # "我表姐玛尔塔开了一家面包店"
    if kin := KIN.match(clause):
        # "我的孩子们都喜欢游泳": the speaker has children; what the children do is theirs
        return [_statement("speaker", "我", "has", kin["kin"], whole, rule="zh.kin"),
                *_kin_named(clause[kin.end() :], whole)], None  # fmt: skip
    subject = SUBJECT.search(clause)
    if subject is not None and AS_OBJECT.search(clause[: subject.start("who")]):
        return [], None  # "导师想让我参加", "想约你去爬山": asked of them, or done with them
    if subject is not None:
        who = (("speaker" if subject["who"].startswith("我") else "other"), subject["who"])
        after = clause[subject.end():]
    elif carried is not None and not re.match(r"^[^，。]{0,4}?(?:他|她|它)", clause):
        who, after = carried, clause
    else:
        return [], None
    structured = _structures(who[0], who[1], after, whole)
    return (structured if structured is not None else _verbs(who[0], who[1], after, whole)), who


def _kin_named(rest: str, whole: str) -> list[Statement]:
    """What a relative named after the kin word does: "我儿子小乐加入了学校的足球队" (小乐 joined
    the team). The name is a noun of two or three characters before a verb or an adverb; it
    stays a subject only if the episode's entities hold it (`derive`)."""
    cuts = list(_cuts(rest))
    while len(cuts) > 2 and cuts[0][1] in _NAME_TAGS and cuts[1][1] in _NAME_CONTINUED and len(cuts[0][0] + cuts[1][0]) <= 4:
        cuts[:2] = [(cuts[0][0] + cuts[1][0], cuts[0][1])]  # a transliterated name jieba cuts: "玛/尔塔"
    if len(cuts) < 2 or not 2 <= len(cuts[0][0]) <= 4 or cuts[0][1] not in _NAME_TAGS or cuts[1][1] not in _VERB_TAGS:
        return []
    return _verbs("named", cuts[0][0], rest[len(cuts[0][0]) :], whole)


def _stopped_before(clause: str, sentence: str, who: tuple[str, str] | None) -> list[Statement]:
    """"我已经不看了" after "现在看恐怖片会做噩梦": the habit quit is what the sentence did
    with that verb before."""
    stopped = STOPPED_IT.search(clause)
    if stopped is None or who is None:
        return []
    earlier = re.search(stopped["verb"] + r"(?P<object>[^，。了的会就都也]{2,8})", sentence[: sentence.find(clause)])
    return [_statement(who[0], who[1], "quit", o, sentence, rule="zh.stopped_before")
            for o in _objects(earlier["object"], control=False)] if earlier else []  # fmt: skip


def chinese_statements(text: str) -> list[Statement]:
    """The statements of each sentence and clause of a Chinese text.

    >>> [(s.predicate, s.object, s.negated) for s in chinese_statements("我不喜欢加班。我在阿里巴巴工作")]
    [('likes', '加班', True), ('works_at', '阿里巴巴', False)]
    >>> [(s.predicate, s.object) for s in chinese_statements("我们搬家了，现在住在上海。我喜欢喜剧和爱情片")]
    [('lives_in', '上海'), ('likes', '喜剧'), ('likes', '爱情片')]
    >>> [(s.predicate, s.object) for s in chinese_statements("我在协和医院当护士")]
    [('works_at', '协和医院'), ('is', '护士')]
    >>> [(s.predicate, s.object, s.negated) for s in chinese_statements("我换工作了，去了拼多多。我已经戒了咖啡")]
    [('works_at', '拼多多', False), ('quit', '咖啡', False)]
    >>> [(s.predicate, s.object) for s in chinese_statements("我已经从百度跳到了阿里。我家在厦门。看恐怖片会做噩梦，我已经不看了")]
    [('works_at', '阿里'), ('left', '百度'), ('lives_in', '厦门'), ('quit', '恐怖片')]
    >>> [(s.predicate, s.object, s.negated) for s in chinese_statements("辣条我早就不吃了。我已经不是周杰伦的粉丝了")]
    [('quit', '辣条', False), ('likes', '周杰伦', True)]
    >>> [(s.predicate, s.object) for s in chinese_statements("我把苹果手机换成了华为手机。豆豆上个月去世了。我已经在三亚安家了")]
    [('uses', '华为手机'), ('quit', '苹果手机'), ('lost', '豆豆'), ('lives_in', '三亚')]
    >>> chinese_statements("你喜欢爵士乐吗？") + chinese_statements("如果我有钱，我会买房") + chinese_statements("我们可以一起练德语")
    []
    """
    found = []
    for sentence in split_sentences(text):
        if QUESTION.search(sentence) or _at_word_start(CONDITION, sentence):
            continue
        carried: tuple[str, str] | None = None
        said: list[Statement] = []
        job_change = JOB_CHANGE.search(sentence) is not None
        for clause in re.split(r"[，,；;]", sentence):
            clause = clause.strip("。！!.…~～ ")
            statements, carried = _clause(clause, sentence, carried)
            if not statements and job_change and (now := NOW_AT.match(clause)):
                # "换了份工作，现在在美团": where one is now, in a sentence about changing jobs
                statements = [_statement("speaker", "我", "works_at", o, sentence, rule="zh.now_at")
                              for o in _objects(now["place"], control=False)]  # fmt: skip
            said += statements or _stopped_before(clause, sentence, carried)
        if job_change:
            said = [s.model_copy(update={"predicate": "works_at"}) if s.predicate in ("attended", "go_to", "join")
                    and not s.negated else s for s in said]  # fmt: skip
        if _at_word_start(UNDECIDED, sentence):
            said = [s for s in said if s.predicate not in _CHOICES]  # "我在犹豫要不要报陶艺课"
        found += said
    return found
