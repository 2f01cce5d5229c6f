"""How memory behaves as it stores, recalls, reflects and forgets: the first half of
`Settings` (`engine.settings`), after the stores (`engine.settings.stores`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, JsonValue, SecretStr

from engine.settings.stores import StoreSettings
from engine.settings.weights import ChannelWeights, ImportanceWeights

__all__ = ["BehaviourSettings"]

# The section of docs/configuration.md each setting is listed in.
_PII_REDACTION: dict[str, JsonValue] = {"section": "PII redaction"}
_IMPORTANCE: dict[str, JsonValue] = {"section": "importance"}
_RECALL: dict[str, JsonValue] = {"section": "recall"}
_WORKING_MEMORY: dict[str, JsonValue] = {"section": "working memory"}
_INGEST_RULES: dict[str, JsonValue] = {"section": "chunking, dedup, resolution, supersession"}
_LLM: dict[str, JsonValue] = {"section": "optional LLM extraction"}
_FORGETTING: dict[str, JsonValue] = {"section": "forgetting"}
_REFLECTION: dict[str, JsonValue] = {"section": "reflection"}
_ROLES: dict[str, JsonValue] = {"section": "role and capability awareness"}


class BehaviourSettings(StoreSettings):
    """Redaction, importance, recall, working memory, ingest rules, the optional LLM,
    forgetting, reflection, and role awareness."""

    redact_pii: bool = Field(
        True, json_schema_extra=_PII_REDACTION,
        description="Phone numbers, e-mail addresses, Chinese ID numbers and bank cards are "
        "replaced by typed placeholders before anything is stored or embedded. Off "
        "only for data known to be clean: a redacted value can never be recalled, an "
        "unredacted one never unseen.",
    )
    pii_patterns: dict[str, str] = Field(
        default_factory=dict, json_schema_extra=_PII_REDACTION,
        description="Extra patterns, placeholder type -> regular expression, e.g. {\"EMPLOYEE_ID\":"
        " \"EMP-\\\\d{6}\"} (as JSON in HINDSIGHT_PII_PATTERNS). Checked when the memory "
        "opens.",
    )

    importance: ImportanceWeights = Field(
        default_factory=ImportanceWeights, json_schema_extra=_IMPORTANCE,
        description="How much each signal adds to an episode's importance "
        "(HINDSIGHT_IMPORTANCE_*).",
    )
    importance_threshold: float = Field(
        0.3, ge=0, le=1, json_schema_extra=_IMPORTANCE,
        description="Scored importance below this keeps an episode in working memory only; "
        "explicit importance is never second-guessed. Higher suits agents whose users"
        " repeat themselves, lower agents whose terse tool results matter; 0 stores "
        "everything.",
    )

    channel_candidates: int = Field(
        50, gt=0, le=1000, json_schema_extra=_RECALL,
        description="Hits taken from each channel before fusion: more finds more, costs latency.",
    )
    fix_candidates: int = Field(
        5, ge=0, le=100, json_schema_extra=_RECALL,
        description="For a question about an agent's work, how many of the fixes its failures "
        "lead to are read and may be shown above them (the fix channel's best): more shows an "
        "error's older fixes too, at a longer read.",
    )
    weights: ChannelWeights = Field(
        default_factory=ChannelWeights, json_schema_extra=_RECALL,
        description="How much each recall channel counts in fusion (HINDSIGHT_WEIGHT_*).",
    )
    rrf_k: int = Field(
        60, gt=0, json_schema_extra=_RECALL,
        description="Reciprocal rank fusion constant: larger flattens the advantage of the first "
        "ranks.",
    )
    rrf_share: float = Field(
        0.0, ge=0, le=1, json_schema_extra=_RECALL,
        description="Share of rank (reciprocal rank fusion) against normalised raw score in "
        "fusion: rank is robust to score scales, scores keep how much better the top "
        "hit was.",
    )
    fusion_normalization: Literal["max", "minmax"] = Field(
        "minmax", json_schema_extra=_RECALL,
        description="How a channel's raw scores are scaled before they are added: max divides by "
        "the best hit; minmax also subtracts the weakest, so a channel whose hits all"
        " score alike cannot lift its whole list.",
    )
    minmax_min_hits: int = Field(
        20, ge=2, le=1000, json_schema_extra=_RECALL,
        description="minmax scales only a channel with at least this many hits: the weaker of two"
        " is no baseline.",
    )
    graph_absolute: bool = Field(
        True, json_schema_extra=_RECALL,
        description="Graph expansion scores are absolute (seed weight x specificity x hop decay):"
        " scaled by their ceiling rather than by the best graph hit, a loose "
        "association stays weak.",
    )
    decay_half_life_days: float = Field(
        30.0, gt=0, json_schema_extra=_RECALL,
        description="Time decay: a memory loses half its weight every this many days since it "
        "happened, down to decay_floor.",
    )
    decay_floor: float = Field(
        0.9, ge=0, le=1, json_schema_extra=_RECALL,
        description="The least time decay leaves of a score, so an old decisive memory can still "
        "win on relevance; lower makes months-old sessions hard to find.",
    )
    importance_weight: float = Field(
        0.3, ge=0, le=1, json_schema_extra=_RECALL,
        description="How much importance moves the score: final x (1 - w + w x importance).",
    )
    graph_seeds: int = Field(
        5, ge=0, le=100, json_schema_extra=_RECALL,
        description="Graph expansion starts from this many of the other channels' best hits.",
    )
    graph_max_hops: int = Field(
        2, ge=1, le=2, json_schema_extra=_RECALL,
        description="Graph expansion goes this many hops from its seeds.",
    )
    graph_hop_decay: float = Field(
        0.5, gt=0, le=1, json_schema_extra=_RECALL,
        description="What a graph hit keeps of its seed's weight per hop.",
    )
    graph_max_entity_degree: int = Field(
        200, gt=0, json_schema_extra=_RECALL,
        description="Entities mentioned by more episodes than this are hubs (the user, the "
        "agent): expanding through them reaches everything and means nothing.",
    )
    entity_hub_share: float = Field(
        0.05, gt=0, le=1, json_schema_extra=_RECALL,
        description="Entities mentioned by more than this share of a namespace's episodes (a "
        "conversation's speakers) are hubs too: the entity channel and graph "
        "expansion skip them.",
    )
    entity_hub_min_degree: int = Field(
        20, gt=0, json_schema_extra=_RECALL,
        description="Below this many mentions an entity is never a hub, however small the "
        "namespace.",
    )
    recency_candidates: int = Field(
        10, gt=0, le=1000, json_schema_extra=_RECALL,
        description="How many of the latest episodes the recency channel offers: a handful, so "
        "\"the latest\" helps the newest relevant memory without flooding fusion with "
        "unrelated ones.",
    )
    reply_candidates: int = Field(
        8, ge=0, le=100, json_schema_extra=_RECALL,
        description="How many of the best fused candidates are checked for being a question whose"
        " next turn in its session then joins as a `reply` hit (\"How long have you had "
        "them?\" / \"I've had them for 3 years\"): more finds more answers until the replies"
        " of weak matches crowd the top; costs one session read; 0 turns it off.",
    )
    update_candidates: int = Field(
        5, ge=0, le=100, json_schema_extra=_RECALL,
        description="How many of the best candidates may lift a newer memory that states a"
        " change (\"the offsite got pushed back to February 19\") over the one it replaces,"
        " whatever `top_k`: a recall of top_k 1 reads and weighs that many, so the stale value"
        " is not the only answer, and one of top_k 50 lifts no more, so its first cards are"
        " those of a smaller top_k; 0 lifts none.",
    )
    read_ahead_candidates: int = Field(
        40, ge=0, le=1000, json_schema_extra=_RECALL,
        description="On a graph server (Neo4j), how many of the best fused candidates recall reads"
        " in one statement with everything its cards need: more saves a second round trip "
        "when the ranking reaches further down, at more episodes read each recall. The "
        "embedded store reads as it goes.",
    )
    side_candidates: int = Field(
        10, ge=0, le=1000, json_schema_extra=_RECALL,
        description="For a question comparing two events, how many of each event's own best "
        "memories (its words and its vector) join as `side` hits; 0 turns it off.",
    )
    time_window_candidates: int = Field(
        50, ge=0, le=1000, json_schema_extra=_RECALL,
        description="A question naming a date also takes this many hits of the vector and keyword"
        " channels from that date alone (its slack included), so that what happened then"
        " is a candidate where other times' turns match the words better: more finds "
        "more, costs two searches; 0 turns it off.",
    )
    time_intent_recency_boost: float = Field(
        4.0, ge=1, json_schema_extra=_RECALL,
        description="Recall multiplies the recency weight by this when the query asks about time "
        "(\"last time\", \"yesterday\", \"上次\"), or about everything of a date it names "
        "(\"what did we talk about on May 2\": the recency channel then lists that date's "
        "episodes).",
    )

    working_capacity: int = Field(
        20, gt=0, le=10_000, json_schema_extra=_WORKING_MEMORY,
        description="Items per session window: more keeps more context in process, costs memory "
        "per session.",
    )
    working_key_weight: float = Field(
        2.0, ge=1, json_schema_extra=_WORKING_MEMORY,
        description="Weight multiplier for items flagged `metadata={\"key\": true}` (tool results a"
        " task needs).",
    )
    working_promote_min: float = Field(
        0.5, ge=0, json_schema_extra=_WORKING_MEMORY,
        description="An item leaving the window (overflow, drain, close) is promoted to episodic "
        "memory when its weight reaches this; lower promotes more chatter, higher "
        "loses more context.",
    )
    working_min_similarity: float = Field(
        0.3, ge=-1, le=1, json_schema_extra=_WORKING_MEMORY,
        description="Working items below this cosine to the query stay out of recall.",
    )

    chunk_max_tokens: int = Field(
        200, ge=10, json_schema_extra=_INGEST_RULES,
        description="Content over this many tokens is also stored as chunks: smaller chunks "
        "pinpoint the answering sentence, larger ones keep its context.",
    )
    chunk_min_tokens: int = Field(
        50, ge=1, json_schema_extra=_INGEST_RULES,
        description="The smallest chunk, in tokens.",
    )
    sentence_vectors_max: int = Field(
        16,
        ge=0,
        le=64,
        json_schema_extra=_INGEST_RULES,
        description="Content of 2 to this many sentences (not Chinese) also gets a vector per "
        "sentence, speaker label kept, searched beside the whole's: a sentence inside a long "
        "turn is found by what it says alone. Costs ingest time (each sentence is embedded) "
        "and vector storage; 0 turns it off. Applies to content stored from then on.",
    )
    embed_whole: bool = Field(
        False, json_schema_extra=_INGEST_RULES,
        description="Content with sentence vectors also gets a model pass of its own for its "
        "vector (true), or takes the mean of its sentences' vectors (false): the mean saves "
        "that pass, the longest text of each such turn, and recall finds what it finds "
        "(bench.ingest). True suits content whose sentences mean little apart. Applies to "
        "content stored from then on.",
    )
    dedup_similarity: float = Field(
        0.92, ge=0, le=1, json_schema_extra=_INGEST_RULES,
        description="A new episode at or above this cosine to a stored one of the namespace, "
        "stating the same facts, is a duplicate: the stored one is seen again "
        "instead.",
    )
    dedup: bool = Field(
        True, json_schema_extra=_INGEST_RULES,
        description="Off stores every repeat as an episode of its own (a log, not a memory). A "
        "step of work with an outcome, or of a task run, is an event and never a repeat.",
    )
    resolution_window: int = Field(
        100, ge=1, le=10_000, json_schema_extra=_INGEST_RULES,
        description="How many of a session's latest episodes (or a task run's latest steps) a new "
        "step of work is placed among to find the failure it fixes: more finds a fix further "
        "from its failure, costs a longer read per stored step.",
    )
    entity_merge_similarity: float = Field(
        0.85, ge=0, le=1, json_schema_extra=_INGEST_RULES,
        description="A new entity name at or above this cosine to one stored entity of the same "
        "type, with no conflicting number or word, becomes its alias (\"Postgres\" / "
        "\"PostgreSQL\" score 0.90, \"Alice\" / \"Alice Chen\" 0.78).",
    )
    supersede_similarity: float = Field(
        0.65, ge=0, le=1, json_schema_extra=_INGEST_RULES,
        description="A new decision sharing a subject with an active one supersedes it at or "
        "above this cosine (\"use Postgres for Atlas\" / \"use MySQL for Atlas\" score "
        "0.74).",
    )

    llm_base_url: str | None = Field(
        None, json_schema_extra=_LLM,
        description="An OpenAI-compatible chat completions endpoint (\".../v1\"). When set, it "
        "extracts entities, decisions, todos, importance and reflection's statements;"
        " the rules stay the fallback when it fails.",
    )
    llm_model: str = Field(
        "gpt-4o-mini", json_schema_extra=_LLM,
        description="The model the LLM endpoint is asked for.",
    )
    llm_api_key: SecretStr | None = Field(
        None, json_schema_extra=_LLM,
        description="The LLM endpoint's API key, sent as a bearer token.",
    )
    llm_timeout: float = Field(
        20.0, gt=0, json_schema_extra=_LLM,
        description="Seconds per request; a slow endpoint falls back to the rules rather than "
        "stall a store.",
    )

    ttl_days: dict[str, float] = Field(
        default_factory=dict, json_schema_extra=_FORGETTING,
        description="Default time to live per kind, in days ({\"tool_call\": 30}); kinds not named "
        "never expire.",
    )
    archive_max_importance: float = Field(
        0.4, ge=0, le=1, json_schema_extra=_FORGETTING,
        description="Maintenance archives episodes below this importance not accessed (nor seen "
        "again) for archive_after_days: the hot stores stay small, nothing is lost "
        "(restorable).",
    )
    archive_after_days: float = Field(
        30.0, gt=0, json_schema_extra=_FORGETTING,
        description="Days without access after which maintenance archives a low-importance "
        "episode.",
    )
    track_access: bool = Field(
        True, json_schema_extra=_FORGETTING,
        description="Recall records what it returned (last_accessed_at, access_count), so that "
        "\"not accessed for N days\" means what it says. Off saves that write.",
    )
    access_batch: int = Field(
        1024, ge=1, json_schema_extra=_FORGETTING,
        description="The embedded graph writes recall's access marks this many episodes at a "
        "time, then checkpoints, since unmerged writes slow later reads: larger "
        "writes less often in longer pauses, and a crash loses at most this many "
        "marks. Neo4j writes them by access_write_seconds instead.",
    )
    access_write_seconds: float = Field(
        1.0, ge=0, json_schema_extra=_FORGETTING,
        description="Neo4j writes recall's access marks this long after the first one held, "
        "every mark held by then in one transaction: longer writes less often while recalls "
        "come fast (each write is a transaction on the leader, beside the next recall's "
        "reads), and another process or a crash may miss this long's marks. 0 writes after "
        "every recall.",
    )
    episodic_capacity: int | None = Field(
        None, gt=0, json_schema_extra=_FORGETTING,
        description="Live episodes per namespace before maintenance archives the lowest by "
        "importance x (1 - w + w x recency).",
    )
    capacity_recency_weight: float = Field(
        0.2, ge=0, le=1, json_schema_extra=_FORGETTING,
        description="The w of episodic_capacity's ranking: low, so rare but important memories "
        "survive.",
    )

    reflection_interval: float = Field(
        21600.0, ge=0, json_schema_extra=_REFLECTION,
        description="`hindsight serve` reflects (and runs maintenance) every this many seconds; 0"
        " disables.",
    )
    reflection_batch_size: int = Field(
        100, gt=0, le=10_000, json_schema_extra=_REFLECTION,
        description="Episodes one reflection run reads: a run is bounded, the next goes on.",
    )
    reflection_time_budget: float = Field(
        30.0, gt=0, json_schema_extra=_REFLECTION,
        description="Seconds one reflection run may spend asking the LLM (when configured); it "
        "writes what it read by then, and the next run goes on from there.",
    )
    reflection_rule_floor: float = Field(
        0.8, ge=0, le=1, json_schema_extra=_REFLECTION,
        description="A statement rule whose precision on the gold set's development part "
        "(engine/rules/precision.json, written by `bench.semantic --write-precision`) is below "
        "this reads nothing: a weak rule's facts are given up for the precision of the rest. 0 "
        "keeps every rule.",
    )
    reflection_rule_min_facts: int = Field(
        5, ge=1, le=10_000, json_schema_extra=_REFLECTION,
        description="The facts a rule must have made on the development part before its "
        "precision is trusted against reflection_rule_floor: fewer, and the rule stays on. "
        "Lower it and a rule is judged on fewer facts.",
    )
    user_name: str = Field(
        "the user", min_length=1, max_length=100, json_schema_extra=_REFLECTION,
        description="The subject of what a speaker with the role `user` (or `human`) states about "
        "themselves, in facts and profiles: their name where the agent knows it. Assistant roles "
        "are never subjects: their own suggestions are not facts about anyone.",
    )
    fact_min_support: int = Field(
        2, ge=1, json_schema_extra=_REFLECTION,
        description="Distinct episodes a second-hand relation (what a speaker says of the other "
        "party) needs in one run to become a fact; statements and decisions count from one. "
        "Higher is surer, lower learns faster.",
    )
    lesson_incidents: int = Field(
        500, ge=1, le=100_000, json_schema_extra=_REFLECTION,
        description="The latest failures (and stated lessons) of one error signature a lesson is "
        "built from: more keeps an old fix's count, costs a longer read per signature a "
        "reflection touches.",
    )
    fact_support_scale: float = Field(
        2.0, gt=0, json_schema_extra=_REFLECTION,
        description="Confidence = (1 - e^(-support/scale)) x recency x agreement: scale 2 gives "
        "0.39 at one episode, 0.63 at two, 0.86 at four.",
    )
    fact_half_life_days: float = Field(
        90.0, gt=0, json_schema_extra=_REFLECTION,
        description="Facts lose half their recency weight every this many days since their newest"
        " evidence.",
    )
    fact_recency_floor: float = Field(
        0.5, ge=0, le=1, json_schema_extra=_REFLECTION,
        description="The least recency leaves of a fact's confidence.",
    )
    fact_card_weight: float = Field(
        0.6, ge=0, le=2, json_schema_extra=_REFLECTION,
        description="Fact cards in recall: their fused relevance times this, beside episodes' "
        "fused scores. Higher puts facts above the turns they came from (shorter context, "
        "less of the conversation around them); 0 shows no fact.",
    )
    fact_confidence_floor: float = Field(
        0.5, ge=0, le=1, json_schema_extra=_REFLECTION,
        description="How much of a fact card's score stays for a fact of no confidence: 1 ranks "
        "facts by relevance alone, 0 by relevance times confidence.",
    )
    fact_answer_boost: float = Field(
        2.5, ge=1, le=10, json_schema_extra=_REFLECTION,
        description="A fact card's score is multiplied by this when the question asks the one-"
        "valued predicate it holds of the entity it names (\"where does Sam work?\" and Sam's "
        "works_at, a favourite, a city): higher puts the current value above the turns that "
        "mention it, 1 treats it as any other fact.",
    )
    fact_relevance_power: float = Field(
        2.0, ge=0, le=8, json_schema_extra=_REFLECTION,
        description="A fact card's score is multiplied by (its similarity to the question / the "
        "best episode's)^this, at most 1: facts are ranked among facts, so the best of weak "
        "facts would otherwise stand beside episodes that match far better. Higher shows a "
        "fact only where it matches about as well as the best turn; 0 turns it off.",
    )
    fact_candidates: int = Field(
        10, ge=0, le=200, json_schema_extra=_REFLECTION,
        description="Facts each source (vector, keyword, named entities) offers a recall, and "
        "fact cards at most. More finds facts further down, at a graph read a recall.",
    )

    digest_words: int = Field(
        80, ge=20, le=400, json_schema_extra=_REFLECTION,
        description="Length of a session digest in words (a Chinese word counted as two "
        "characters): longer keeps more of the session's sentences, at more of an agent's context.",
    )
    digest_diversity: float = Field(
        0.5, ge=0, le=2, json_schema_extra=_REFLECTION,
        description="How much a digest sentence loses for saying what a sentence already picked "
        "says: 0 picks the most central ones even when they repeat, higher spreads over threads.",
    )
    digest_lead: float = Field(
        3.0, ge=0, le=10, json_schema_extra=_REFLECTION,
        description="How much more an early sentence of a session counts in its digest (the first "
        "sentence 1 + this, the last 1): sessions open with their news and close with goodbyes.",
    )
    digest_idle_minutes: float = Field(
        30.0, ge=0, le=100_000, json_schema_extra=_REFLECTION,
        description="An open memory (a library's as the server's, by a thread `close` stops) and "
        "`maintain` digest a session whose latest episode is this old and whose digest is missing "
        "or older than it; `end_session` and `reflect` digest at once. 0: only those.",
    )
    digest_card_weight: float = Field(
        0.3, ge=0, le=2, json_schema_extra=_REFLECTION,
        description="Digest cards found by an ordinary question's words: their fused relevance "
        "times this. A question about a session or a day's talk shows its digest first whatever "
        "this is; 0 shows no digest to other questions.",
    )

    role_boost: float = Field(
        1.25, ge=1, le=4, json_schema_extra=_ROLES,
        description="A memory written by or for the asking role is multiplied by this: higher "
        "keeps an agent's own findings on top, lower lets other roles' memories "
        "compete.",
    )
    missing_capability_factor: float = Field(
        0.7, gt=0, le=1, json_schema_extra=_ROLES,
        description="A tool-call memory about a tool the caller lacks is multiplied by this: it "
        "shows what worked elsewhere, but the caller cannot repeat it. 1 disables the"
        " penalty.",
    )
