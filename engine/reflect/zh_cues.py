"""The wording Chinese statements are read by (`engine.reflect.statements_zh`): the verbs and
the predicates they name, who speaks, what negates, hedges, conditions or only plans a
statement, and the forms that carry their own predicate."""

from __future__ import annotations

import re

from engine.reflect.word_lists import word_lists

_WORDS = word_lists("zh_cues")

__all__ = [
    "ADVERBS", "ALLERGY", "CONDITION", "CONTROL", "COORDINATION", "EMPLOYEE", "ENDED", "FAN", "FAVOURITE",
    "FAVOURITE_AFTER", "FOR_NOW", "HEDGE", "HOME", "JOB_CHANGE", "JUMP", "KIN", "LOST", "LOST_INTEREST", "LEAD_WORDS", "MODAL", "NAMED", "NEGATION", "PAST", "PLACE",
    "NOT_SINCE", "NOW_AT", "PLACE_OF", "PLAN_VERB", "PREDICATE_OF", "PRONOUNS", "QUESTION", "RESIGNED", "ROLE",
    "SPEECH_AFTER", "STOPPED_IT", "SUBJECT", "SWAP", "TOPIC_STOPPED", "TRAINING",
    "VERB",
]  # fmt: skip

_VERBS = _WORDS.table("verbs")
PREDICATE_OF = {verb: predicate for predicate, verbs in _VERBS.items() for verb in verbs}
# One alternation, longest first: at one place the longest form wins.
VERB = re.compile("|".join(sorted(PREDICATE_OF, key=len, reverse=True)))
CONTROL = _WORDS("control")

# "我", "我们", "我们团队", "你"; not "我妹妹", "我的": another person, or the speaker's thing
SUBJECT = re.compile(
    r"^(?:[^，。！？,.!?]{0,6}?)(?P<who>我们团队|我们公司|我们|我|你)"
    r"(?![的妹姐哥弟爸妈父母妻儿女朋同家奶爷外邻健])"
)
# "我女儿艾娃…", "我的孩子们都喜欢游泳": the speaker has them; what they do is theirs.
KIN = re.compile(
    r"^(?:[^，。！？]{0,6}?)我(?:的)?(?P<kin>儿子|女儿|孩子们|孩子|妻子|老婆|丈夫|老公|狗狗|狗|猫咪|猫|宠物)"
)
_ROLES = "|".join(_WORDS.ordered("roles"))
ROLE = re.compile(rf"^(?:做|当|担任|是一名|是一个|是)(?P<role>[^，。！？的]{{0,8}}?(?:{_ROLES}))")
PLACE = re.compile(
    # "在华为上班", and "去华为上班了" (going somewhere is a place of work only to work there)
    r"(?:在|(?:去|到)(?=[^，。！？在去到]{1,14}?(?:工作|上班|任职|实习|报到)))(?P<place>[^，。！？在去到]{1,14}?)"
    rf"(?P<verb>工作|上班|任职|实习|报到|办公|住|生活|安家|定居|落户|学习|读书|上学|教|攀岩|做了志愿者|做志愿者|当志愿者"
    rf"|做(?=[^，。]{{0,8}}?(?:{_ROLES}))|当(?=[^，。]{{0,8}}?(?:{_ROLES})))"
)
PLACE_OF = {
    **dict.fromkeys(("工作", "上班", "任职", "实习", "报到", "办公", "做", "当"), "works_at"),
    **dict.fromkeys(("住", "生活", "安家", "定居", "落户"), "lives_in"),
    **dict.fromkeys(("学习", "读书", "上学"), "study_at"),
    **dict.fromkeys(("做了志愿者", "做志愿者", "当志愿者"), "volunteer_at"),
    "教": "teach_at",
    "攀岩": "climb_at",
}
FAVOURITE = re.compile(
    r"(?:最喜欢|最爱)(?:吃|喝|看|听|玩)?的(?P<kind>[^，。！？,.!?是变成换]{1,6})(?:是|变成了|变成|成了|换成了|换成)(?P<object>.+)"
)
FAVOURITE_AFTER = re.compile(r"^(?P<object>[^，。！？,.!?]{1,20}?)是我(?:最喜欢|最爱)的(?P<kind>[^，。！？,.!?]{1,6})$")
FAN = re.compile(r"是(?P<object>[^，。]{1,24}?)的(?:铁杆|忠实|超级|头号)?(?:粉丝|歌迷|影迷|球迷|书迷)")
ALLERGY = re.compile(r"对(?P<object>[^，。]{1,16}?)过敏")
TRAINING = re.compile(r"为(?P<object>[^，。]{1,16}?)(?:做)?(?:训练|备战|做准备)")
NAMED = re.compile(r"叫(?P<name>[^，。的]{1,16})的")  # "一只叫饼干的救助犬": 饼干

NEGATION = re.compile(r"(?:不|没有|没|从不|从没|不再|(?<!特)别)(?:太|很|怎么|大|再|是很)?$")  # not 特别, "especially"
ADVERBS = re.compile(
    r"很|非常|特别|真的|一直|都|也|还|更|最|比较|已经|刚刚|刚|曾经|经常|总是|正在|在|终于|其实|主要|通常|说实话|真|可|现在|但|但是"
)
MODAL = re.compile(r"可以|应该|应当|能够|最好|不妨|该|得|能")  # what may or should be
# "我戒了咖啡", "我不再喝咖啡了": a taste or a habit ended (a liking verb after "不再" is read
# as a negated liking instead).
ENDED = re.compile(
    r"^(?:[^，。]{0,4}?)(?:(?:不再|戒掉了|戒掉|戒了|戒)(?!喜欢|爱)(?:喝|吃|看|玩|听|抽|打|踢|碰)?(?P<object>[^，。！？]+)"
    r"|不(?:喝|吃|玩|抽|打|踢|弹)(?P<stopped>[^，。！？]+?)了)$"  # "我就不打篮球了": no more
)
# "我四月从协和辞职了": a workplace left.
RESIGNED = re.compile(
    r"从(?P<old>[^，。]{1,10}?)(?:辞职|离职)|在(?P<last>[^，。]{1,10}?)的最后一天"  # 今天是我在网易的最后一天
    r"|(?:已经)?不在(?P<gone>[^，。]{1,10}?)(?:工作|上班)?了$"  # 我已经不在阿里了
)
# "换了份工作，现在在美团": in a sentence about changing jobs, where one now is.
NOW_AT = re.compile(r"^(?:现在|目前|如今)?在(?P<place>[^，。！？]{2,10})$")
# "我已经一个月没喝奶茶了": a habit stopped a while ago.
NOT_SINCE = re.compile(
    r"(?:[一两三四五六七八九十几半\d]+个?(?:多)?(?:月|周|星期|年|天)|很久|好久|好几个月)(?:都)?没(?:喝|吃|抽|玩|碰)(?:过)?(?P<object>[^，。！？]+?)了"
)
# "我已经从百度跳到了阿里": a job changed, from one employer to the next.
JUMP = re.compile(r"从(?P<old>[^，。]{1,10}?)(?:跳槽|跳)(?:到了|到|去了|去)(?P<new>[^，。]{1,10})")
# "我家在厦门", "我家住在北京": home.
HOME = re.compile(r"^[^，。]{0,4}?我(?:的)?家(?:住)?在(?P<place>[^，。]{1,10})$")
# "现在看恐怖片会做噩梦，我已经不看了": the habit the sentence names before, stopped.
STOPPED_IT = re.compile(r"不(?P<verb>看|吃|喝|玩|抽|打|踢|弹|听)了$")
# "辣条我早就不吃了": the thing first, then the habit stopped.
TOPIC_STOPPED = re.compile(
    r"^(?P<object>[^，。我你]{1,8})我(?:早就|已经|早已|现在|再也)?(?:不再|不)(?:吃|喝|看|玩|抽|踢|听|碰|学|用)了$"
)
# "我把苹果手机换成了华为手机": the new one used, the old one given up.
SWAP = re.compile(r"把(?P<old>[^，。]{1,12}?)换成了?(?P<new>[^，。]{1,12})")
# "豆豆上个月去世了": someone lost (a name: not "我邻居家的狗").
LOST = re.compile(r"^(?P<object>[^，。我你他她的]{1,6}?)(?:上个月|前几天|前不久|去年|昨天|刚刚|已经)?(?:去世了|死了|走了)")
# "我现在是华为的员工了": where one works.
EMPLOYEE = re.compile(r"是(?P<object>[^，。]{1,12}?)的(?:员工|职员|雇员|正式员工)")
# "我今天不吃晚饭了", "我这周不喝酒了": for a while, not for good.
FOR_NOW = re.compile(r"今天|今晚|明天|这周|这个星期|这次|暂时|最近几天")
# "我现在对甜食没兴趣了": a liking gone.
LOST_INTEREST = re.compile(r"对(?P<object>[^，。]{1,16}?)(?:没兴趣|没有兴趣|不感兴趣|不再感兴趣|没感觉|失去了兴趣|失去兴趣)")
# "我换工作了，去了拼多多": where one went, in a sentence about changing jobs, is the employer.
JOB_CHANGE = re.compile(r"换工作|换了工作|换了份工作|跳槽|离职|辞职")
PAST = re.compile(r"以前|曾经|过去|原来|从前|小时候|那时候|当年|年轻时")  # "我以前很喜欢X", "我小时候住在西安"
HEDGE = re.compile(r"可能|也许|大概|好像|或许|说不定")
# "到哪儿都骑自行车", "什么都吃": everywhere, everything, not a question
QUESTION = re.compile(r"[?？]|吗$|呢$|什么(?![都也])|哪(?![儿里]?[都也])|谁(?![都也])|怎么|为什么|多少")
CONDITION = re.compile(r"如果|要是|假如|假设|万一|希望|但愿")  # conditions and wishes
COORDINATION = re.compile(r"以及|还有|和|与|跟|及|、")
# A wish or plan to talk ("想和你聊聊工作的事", "打算跟你说说我的论文"): of a talk, not of the thing.
SPEECH_AFTER = re.compile(r"^(?:去|来)?(?:跟|和|与|同|给)?(?:你|您|你们|大家)?(?:聊|说说|谈谈|谈|讨论|商量|讲讲|讲)")
LEAD_WORDS = _WORDS("lead_words")
# The verb of a plan before its object: "打算买X", "想去看X", "考虑换X".
PLAN_VERB = re.compile(r"^(?:去|来)?(?:申请|参加|使用|采用|(?P<verb>[换买养看学做跑找试玩见用逛])(?P=verb)?)")
PRONOUNS = _WORDS("pronouns")
