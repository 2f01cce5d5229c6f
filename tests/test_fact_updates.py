"""Knowledge updates in the fact layer, on real stores: a newer value of a functional predicate
closes the older one, a reversal closes the positive fact on the same object (matched by its
words), every closed fact ends when the newer statement was made, and what changes nothing
closes nothing. English and Chinese."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from engine import Memory
from engine.reflect.derive import CandidateFact, EntityRef
from engine.reflect.reconcile import reconcile

FACTS = (
    "MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE a.namespace = $namespace RETURN a.name, "
    "f.predicate, f.negated, b.name, f.valid_to, f.invalidated_by, f.id ORDER BY f.valid_from, b.name"
)


def _at(day: str) -> float:
    return datetime.fromisoformat(day).replace(hour=12, tzinfo=UTC).timestamp()


def _told(memory: Memory, speaker: str, *turns: tuple[str, str]) -> list[list[Any]]:
    """Store each (day, text) as the speaker's turn, reflect to the end, and return the facts."""
    for day, text in turns:
        memory.store(text, role=speaker, session_id=day, occurred_at=_at(day), importance=0.8)
    while memory.reflect().status != "nothing_new":
        pass
    return memory.cypher(FACTS).rows


def _active(rows: list[list[Any]]) -> set[tuple[str, bool, str]]:
    return {(p, negated, obj) for _, p, negated, obj, valid_to, _, _ in rows if valid_to is None}


def _closed(rows: list[list[Any]]) -> dict[tuple[str, str], float]:
    return {(p, obj): valid_to for _, p, _, obj, valid_to, _, _ in rows if valid_to is not None}


@pytest.mark.parametrize(
    ("old", "new", "predicate", "stale", "current"),
    [
        ("I work at Google as a data engineer.", "I started a new job at Microsoft last week.",
         "works_at", "Google", "Microsoft"),
        ("I live in Boston.", "I moved to Seattle last month.", "lives_in", "Boston", "Seattle"),
        ("My favorite sport is tennis.", "Badminton is my favorite sport now.", "favorite_sport",
         "tennis", "Badminton"),
        ("我在阿里巴巴工作。", "我上个月跳槽到字节跳动了。", "works_at", "阿里巴巴", "字节跳动"),
        ("我住在北京。", "我搬到上海了。", "lives_in", "北京", "上海"),
        ("我最喜欢的运动是网球。", "现在我最喜欢的运动是羽毛球。", "favorite_运动", "网球", "羽毛球"),
        ("I'm employed at Siemens in Munich.", "I got hired by Bosch last month.", "works_at", "Siemens", "Bosch"),
        ("My favorite band is Coldplay.", "My new favorite band is Radiohead.", "favorite_band", "Coldplay",
         "Radiohead"),
        ("我在网易工作。", "我换工作了，去了拼多多。", "works_at", "网易", "拼多多"),
        ("I'm a nurse at St. Mary's Hospital.", "I went back to school and I'm a teacher now, at Westside Elementary.",
         "works_at", "St. Mary's Hospital", "Westside Elementary"),
        ("I'm a product manager at Shopify.", "I accepted an offer from Airbnb and started there on Monday.",
         "works_at", "Shopify", "Airbnb"),
        ("I've lived in Toronto my whole life.", "We finally made the move, we're settled in Vancouver now.",
         "lives_in", "Toronto", "Vancouver"),
        ("我在小米当工程师。", "我已经去华为上班了。", "works_at", "小米", "华为"),
        ("I'm a data scientist at Spotify.",
         "I'm joining Netflix as a senior data scientist next month, already handed in my notice at Spotify.",
         "works_at", "Spotify", "Netflix"),
        ("My employer is Accenture.", "I switched to a new company, I'm at Deloitte now.", "works_at", "Accenture",
         "Deloitte"),
        ("My favourite author is Murakami.", "Sally Rooney has replaced Murakami as my favourite author.",
         "favorite_author", "Murakami", "Sally Rooney"),
        ("我目前在百度做算法工程师。", "我已经从百度跳到了阿里，做推荐系统。", "works_at", "百度", "阿里"),
        ("我家在厦门。", "我现在住在福州了。", "lives_in", "厦门", "福州"),
        ("My favorite sport is basketball.", "I've switched to volleyball, it's my favorite sport now.",
         "favorite_sport", "basketball", "volleyball"),
        ("I'm living in Dublin.", "Home is Edinburgh now, we moved in March.", "lives_in", "Dublin", "Edinburgh"),
        ("我最爱吃的菜是红烧肉。", "现在我最爱吃的菜是清蒸鱼。", "favorite_菜", "红烧肉", "清蒸鱼"),
        ("我在联想工作。", "我现在是华为的员工了。", "works_at", "联想", "华为"),
        ("我住在天津。", "我们去年年底搬家到了大连。", "lives_in", "天津", "大连"),
        ("我住在哈尔滨。", "我已经在三亚安家了。", "lives_in", "哈尔滨", "三亚"),
        ("我最喜欢的动物是猫。", "我现在最喜欢的动物换成狗了。", "favorite_动物", "猫", "狗"),
        ("I live in San Francisco.", "We finally left San Francisco and bought a house in Sacramento.",
         "lives_in", "San Francisco", "Sacramento"),
        ("我在协和医院当护士，主要上夜班。", "我四月从协和辞职了，现在在一所小学当校医。", "works_at", "协和医院", "小学"),
    ],
)  # fmt: skip
def test_a_newer_value_closes_the_older_one_at_the_time_it_was_said(
    memory: Memory, old: str, new: str, predicate: str, stale: str, current: str
) -> None:
    rows = _told(memory, "Sam", ("2025-03-01", old), ("2025-06-20", new))
    assert (predicate, False, current) in _active(rows)
    assert (predicate, False, stale) not in _active(rows)
    # Closed when the newer statement was made, not when reflection ran.
    assert _closed(rows)[(predicate, stale)] == _at("2025-06-20")
    newer = next(r[6] for r in rows if r[1] == predicate and r[3] == current)
    assert next(r[5] for r in rows if r[1] == predicate and r[3] == stale) == newer


@pytest.mark.parametrize(
    ("old", "new", "stale"),
    [
        ("I love jazz music.", "I don't like jazz anymore.", ("likes", "jazz music")),
        ("I really enjoy horror movies.", "I can't stand horror movies anymore.", ("likes", "horror movies")),
        ("I'm working at Stripe as a designer.", "I left Stripe last month.", ("works_at", "Stripe")),
        ("I run the marketing team at Canva.", "I got laid off from Canva, but I found a role at Atlassian quickly.",
         ("works_at", "Canva")),
        # a "no longer" set apart by a comma is said of Meta, not of the joining
        ("I've been working at Meta since January.", "No longer at Meta, I joined OpenAI.", ("works_at", "Meta")),
        # The small parser reads "like" as a preposition here, and "brew" as a verb below.
        ("I like running in the morning.", "I no longer like running.", ("likes", "running")),
        ("I like cold brew.", "Actually I don't like cold brew anymore, it is too bitter.", ("likes", "cold brew")),
        ("我喜欢爵士乐。", "我不喜欢爵士乐了。", ("likes", "爵士乐")),
        ("我很喜欢恐怖片。", "我受不了恐怖片了。", ("likes", "恐怖片")),
        # a habit quit ends the liking; a Chinese object is matched by its head (喝咖啡: 咖啡)
        ("I love coffee.", "I gave up coffee, it was wrecking my sleep.", ("likes", "coffee")),
        ("我很喜欢喝咖啡。", "我已经戒了咖啡。", ("likes", "喝咖啡")),
        ("我喜欢吃榴莲。", "我讨厌榴莲了。", ("likes", "吃榴莲")),
        ("我喜欢看足球。", "我现在不爱看足球了。", ("likes", "足球")),
        ("I really like country music.", "I'm over country music, it all sounds the same to me now.",
         ("likes", "country music")),
        ("我特别喜欢打篮球。", "膝盖受伤以后我就不打篮球了。", ("likes", "打篮球")),
        ("我很爱吃甜食。", "我现在对甜食没兴趣了。", ("likes", "甜食")),
        # what "them" and a verb alone refer to: the thing the sentence opened with
        ("I adore horror movies.", "Horror movies give me nightmares now, I can't watch them anymore.",
         ("likes", "horror movies")),
        ("我很喜欢看恐怖片。", "现在看恐怖片会做噩梦，我已经不看了。", ("likes", "恐怖片")),
        ("I play golf every Sunday.", "I gave up golf and took up cycling instead.", ("play", "golf")),
        ("I love swimming.", "I haven't enjoyed swimming since the accident.", ("likes", "swimming")),  # swim, swimming
        ("I love cheese.", "I went vegan last month, so no more cheese for me.", ("likes", "cheese")),
        ("I like sushi a lot.", "Sushi is not my thing anymore.", ("likes", "sushi")),
        ("I'm a big fan of Taylor Swift.", "I'm not a Taylor Swift fan anymore.", ("likes", "Taylor Swift")),
        ("我很喜欢吃辣条。", "辣条我早就不吃了。", ("likes", "吃辣条")),
        ("我是周杰伦的粉丝。", "我已经不是周杰伦的粉丝了。", ("likes", "周杰伦")),
        # an ending is no paraphrase of what it ends, in a cluster of similar turns
        ("I use an iPhone for everything.", "I finally ditched my iPhone and switched to a Pixel.", ("uses", "iPhone")),
        ("我在学日语。", "日语我已经不学了，现在在学韩语。", ("learn", "日语")),
        ("I drive a Honda Civic to work every day.", "I sold the Civic last week and bought a Tesla.",
         ("drive", "Honda Civic")),
        ("I have a cat named Luna.", "Sadly Luna passed away last month, I miss her so much.", ("has", "Luna")),
        ("I've been dating Marco for two years.", "Marco and I broke up in April.", ("date", "Marco")),
        ("我一直用苹果手机。", "我把苹果手机换成了华为手机。", ("uses", "苹果手机")),
        ("我养了一只叫豆豆的狗。", "豆豆上个月去世了，我很难过。", ("has", "豆豆")),
        ("I love playing chess.", "Chess bores me now.", ("likes", "chess")),
        ("I hate mushrooms.", "I've actually started to like mushrooms!", ("dislikes", "mushrooms")),
        ("我讨厌香菜。", "我现在居然喜欢上香菜了。", ("dislikes", "香菜")),
        ("我在网易做游戏策划。", "今天是我在网易的最后一天，下周一去米哈游报到。", ("works_at", "网易")),
        ("I drink coffee every day.", "Doctor told me to cut out caffeine, so I haven't had coffee in a month.",
         ("drink", "coffee")),
        ("我超爱喝奶茶，一天两杯。", "医生让我戒糖，我已经一个月没喝奶茶了。", ("likes", "奶茶")),
        ("我很喜欢打篮球。", "我对篮球失去了兴趣。", ("likes", "打篮球")),
        ("我很喜欢喝酒。", "我现在基本不喝酒了。", ("likes", "喝酒")),  # 喝酒 is 酒 drunk
        ("我在阿里上班。", "我已经不在阿里了，换了份工作，现在在美团。", ("works_at", "阿里")),
        # a named thing moved off another: Atlas dropped Postgres
        ("Atlas uses Postgres for its main database.", "We migrated Atlas from Postgres to MySQL last sprint.",
         ("uses", "Postgres")),
        ("I drink coffee every morning, I love it.",
         "I switched from coffee to green tea, I don't drink coffee anymore.", ("drink", "coffee")),
    ],
)  # fmt: skip
def test_a_reversal_closes_the_fact_it_reverses(
    memory: Memory, old: str, new: str, stale: tuple[str, str]
) -> None:
    rows = _told(memory, "Sam", ("2025-01-20", old), ("2025-06-01", new))
    # An entity keeps the casing it was last written with ("Sushi is not my thing")
    closed = {(p, obj.casefold()): at for (p, obj), at in _closed(rows).items()}
    assert closed == {(stale[0], stale[1].casefold()): _at("2025-06-01")}


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I like jazz.", "I also like rock music."),  # likes holds many values
        ("I work at Google.", "My sister Ana works at Microsoft."),  # another person's job
        ("I live in Boston.", "I visited Seattle last month."),  # a visit is no move
        ("我喜欢爵士乐。", "我也喜欢摇滚乐。"),
        ("我在阿里巴巴工作。", "我妹妹在腾讯工作。"),
        ("I love coffee.", "I love tea too."),
        ("I live in Chicago.", "My parents moved to Phoenix last year."),
        ("我住在广州。", "我爸妈搬到了海南。"),
        ("I'm a product manager at Shopify.", "My husband just got a job at Airbnb."),
        ("I love jazz.", "I don't like smooth jazz though."),  # a narrower thing: jazz stands
        ("I'm a data scientist at Spotify.", "I interviewed at Netflix but I'm staying at Spotify."),
        ("我在美团上班。", "我去京东面试了，但还是留在美团。"),
        ("I love cheese.", "I don't eat blue cheese though."),
        ("我喜欢吃奶酪。", "不过我不吃蓝纹奶酪。"),
        ("I have a cat named Luna.", "My neighbor's cat passed away last month."),
        ("我养了一只叫豆豆的狗。", "我邻居家的狗去世了。"),
        ("I live in Boston.", "I'm in London this week for a conference."),  # a stay is no move
        ("I live in Boston.", "I used to live in Rome when I was a kid."),
        ("我住在杭州。", "我这周在北京出差。"),
        ("我住在杭州。", "我小时候住在西安。"),  # where one was
        ("I'm a nurse at Mercy Hospital.", "I picked up an extra shift at Saint Luke's this weekend to help a friend."),
        ("我在协和医院当护士。", "这周末我去朋友的诊所帮忙顶班。"),
        ("我在阿里上班。", "我朋友已经不在阿里了。"),
        ("我很喜欢打篮球。", "我弟弟对篮球失去了兴趣。"),
        ("我在腾讯做设计师。", "我和一个在阿里工作的朋友吃了午饭。"),  # the friend's workplace
        ("我在武汉住了十年。", "我们去长沙玩了一个星期。"),
    ],
)  # fmt: skip
def test_what_changes_nothing_closes_nothing(memory: Memory, first: str, second: str) -> None:
    rows = _told(memory, "Sam", ("2025-03-03", first), ("2025-06-06", second))
    assert _closed(rows) == {}


def test_a_plain_reversal_closes_a_liking_said_more_often(memory: Memory) -> None:
    """The person's own word that a taste has changed ends it, however often it was said."""
    rows = _told(memory, "Leo", ("2025-01-10", "I love jazz, it's my go-to music when I cook."),
                 ("2025-02-10", "I love jazz so much, I went to two concerts this month."),
                 ("2025-06-02", "Funny thing, I don't really like jazz anymore."))  # fmt: skip
    assert _closed(rows) == {("likes", "jazz"): _at("2025-06-02")}


def test_an_older_statement_learned_later_does_not_replace_the_newer(memory: Memory) -> None:
    _told(memory, "Sam", ("2025-06-20", "I work at Microsoft now."))
    rows = _told(memory, "Sam", ("2025-03-01", "I work at Google."))
    assert ("works_at", False, "Microsoft") in _active(rows)
    assert ("works_at", False, "Microsoft") not in {(p, False, o) for p, o in _closed(rows)}


def test_the_current_value_is_the_fact_recall_shows(memory: Memory) -> None:
    _told(memory, "Sam", ("2025-03-01", "I work at Google as a data engineer."),
          ("2025-06-20", "I started a new job at Microsoft last week."))  # fmt: skip
    facts = memory.recall("Where does Sam work?", layer="semantic", now=_at("2025-06-21"))
    assert facts and facts[0].metadata["object"] == "Microsoft"
    assert all(card.metadata["object"] != "Google" for card in facts)  # closed: never shown


@pytest.mark.parametrize(
    ("speaker", "own", "others", "question", "value"),
    [
        ("Sam", "I work at Google.", "My sister Ana works at Microsoft.", "Where does Sam work?", "Google"),
        ("Sam", "我在阿里巴巴工作。", "我妹妹在腾讯工作。", "Sam在哪里工作？", "阿里巴巴"),
        # the segmenter cuts "小李住" from the question: the name is found among its pieces
        ("小李", "我住在广州。", "我爸妈搬到了海南。", "小李住在哪里？", "广州"),
        ("Sam", "My favorite food is ramen.", "My brother loves pizza, it's his favorite food.",
         "What is Sam's favorite food?", "ramen"),
        # said in Chinese, the fact reads in Chinese, so the question's words find it
        ("小周", "我在腾讯做设计师。", "我和一个在阿里工作的朋友吃了午饭。", "小周在哪里工作？", "腾讯"),
        # a taste asked of the thing it names: the liking of jazz, not the newer narrower dislike
        ("Leo", "I love jazz.", "I don't like smooth jazz though.", "Does Leo like jazz?", "jazz"),
        ("Ana", "I have a cat named Luna.", "My neighbor's cat passed away last month.", "Does Ana have a cat?", "Luna"),
        # what the statement says of the thing: "狗" inside the question's "养狗"
        ("小林", "我养了一只叫豆豆的狗。", "我邻居家的狗去世了。", "小林养狗吗？", "豆豆"),
        ("阿华", "我很喜欢打篮球。", "我弟弟对篮球失去了兴趣。", "阿华喜欢篮球吗？", "打篮球"),  # 篮球 inside 打篮球
        # a habit asked of the thing it names: the quitting answers it
        ("Jo", "Coffee is life. I drink like four cups a day.",
         "Doctor told me to cut out caffeine, so I haven't had coffee in a month.", "Does Jo drink coffee?", "coffee"),
    ],
)  # fmt: skip
def test_the_fact_a_question_asks_of_whom_it_names_comes_first(
    memory: Memory, speaker: str, own: str, others: str, question: str, value: str
) -> None:
    """A newer turn about someone else's job is nearer the question in words and time; the
    fact of the asked predicate about the person named answers it."""
    _told(memory, speaker, ("2025-03-03", own), ("2025-06-06", others))
    first = memory.recall(question, now=_at("2025-06-07"))[0]
    assert first.layer == "semantic" and first.metadata["object"] == value
    assert first.trace is not None and first.trace.answer_factor > 1
    plain = memory.recall("What did Sam say?", layer="semantic", now=_at("2025-06-07"))
    assert all(card.trace is not None and card.trace.answer_factor == 1 for card in plain)


@pytest.mark.parametrize(
    ("speaker", "had", "lost", "question", "value"),
    [
        ("Ana", "I have a cat named Luna.", "Luna passed away last month, I miss her.", "Does Ana have a cat?", "Luna"),
        ("小林", "我养了一只叫豆豆的狗。", "豆豆上个月去世了，我很难过。", "小林养狗吗？", "豆豆"),
    ],
)  # fmt: skip
def test_the_fact_that_closed_the_answer_answers_in_its_place(
    memory: Memory, speaker: str, had: str, lost: str, question: str, value: str
) -> None:
    """"Does Ana have a cat?": the loss of Luna answers, though it names no cat; the turn
    that told of having her matches the question's words better and is no longer true."""
    _told(memory, speaker, ("2025-01-10", had), ("2025-06-02", lost))
    first = memory.recall(question, now=_at("2025-06-03"))[0]
    assert first.layer == "semantic" and first.metadata["predicate"] == "lost"
    assert first.metadata["object"] == value
    assert first.trace is not None and first.trace.answer_factor > 1


def test_an_event_told_of_again_is_one_fact_and_another_time_is_another(memory: Memory) -> None:
    rows = _told(memory, "Caroline", ("2025-06-10", "I went to a pride parade last weekend."),
                 ("2025-06-11", "The pride parade I went to last weekend was amazing."),
                 ("2025-08-20", "I went to a pride parade yesterday!"))  # fmt: skip
    parades = [row for row in rows if row[1:4] == ["attended", False, "pride parade"]]
    assert len(parades) == 2  # June's, told twice, and August's: each keeps its own sentence
    statements = memory.cypher(
        "MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE a.namespace = $namespace AND f.predicate = 'attended' "
        "RETURN f.support, f.statement ORDER BY f.refers_to"
    ).rows
    assert [support for support, _ in statements] == [2, 1]
    assert "yesterday" in statements[1][1]


def test_a_reversal_a_minute_later_closes_the_fact_whenever_reflection_runs() -> None:
    """Two statements a minute apart differ in strength in the seventh decimal only: the
    reversal must not depend on the wall clock reflection runs at."""
    sam, brew = EntityRef(id="sam", name="Sam"), EntityRef(id="brew", name="cold brew")
    said = datetime(2025, 5, 5, 12, tzinfo=UTC).timestamp()
    liked = CandidateFact(subject=sam, predicate="likes", negated=False, object=brew,
                          statement="I like cold brew.", episode_id="e1", at=said)  # fmt: skip
    not_any_more = liked.model_copy(update={"negated": True, "episode_id": "e2", "at": said + 60,
                                            "statement": "I don't like cold brew anymore."})  # fmt: skip
    for hours in range(0, 24 * 700, 7):  # every seven hours over two years after
        plan = reconcile([liked, not_any_more], [], now=said + 3600 * hours, min_support=1,
                         scale=2, half_life=90, floor=0.2)  # fmt: skip
        [positive] = [w for w in plan.writes if not w.negated]
        assert [c.old for c in plan.closes] == [positive.id], hours


def test_reading_everything_again_brings_no_closed_fact_back(on_each_store: Memory) -> None:
    """`reflect(force=True)` reads every episode again: what they already stated is known, so
    nothing is written, reinforced or closed twice, and a replaced or reversed fact stays closed."""
    memory = on_each_store
    before = _told(memory, "Sam", ("2025-03-01", "I work at Google as a nurse."), ("2025-03-02", "I love jazz."),
                   ("2025-06-20", "I started a new job at Microsoft last week."),
                   ("2025-06-21", "I don't like jazz anymore."))  # fmt: skip
    assert ("works_at", False, "Google") not in _active(before) and ("likes", False, "jazz") not in _active(before)
    again = memory.reflect(force=True)
    assert again.episodes_seen == 4
    assert (again.facts_written, again.facts_reinforced, again.facts_closed) == (0, 0, 0)
    assert sorted(map(tuple, memory.cypher(FACTS).rows)) == sorted(map(tuple, before))
