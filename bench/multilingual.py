"""What the multilingual space costs: store_many of Chinese turns, recall of Chinese questions,
and resident memory, with `multilingual_embedder` "use" against "off", A/B in one process.

    python -m bench.multilingual [--episodes 400] [--rounds 2] [--json]

English text never enters the space, so English ingest and recall are bench.speed's numbers.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from engine import Memory, Settings
from engine.embed.multilingual import UseEmbedder

PEOPLE = ["小林", "阿杰", "王芳", "李明", "陈静", "张伟", "刘洋", "赵磊"]
TIMES = ["昨天", "上周末", "前天", "上个月", "今天早上", "周三晚上", "三天前", "去年夏天"]
PLACES = ["杭州", "公司附近的公园", "图书馆", "健身房", "老家", "新开的咖啡馆", "海边", "山上"]
ACTS = ["跑了五公里", "读完了一本小说", "学做了红烧肉", "拍了很多照片", "和朋友打了篮球",
        "写了项目的周报", "练了一个小时的吉他", "参加了志愿者活动"]  # fmt: skip
FEELINGS = ["感觉很放松", "有点累", "特别开心", "收获很大", "打算下次再去", "天气很好"]
QUESTIONS = ["谁最近去运动了？", "有人读过什么书吗？", "谁学了做菜？", "谁在海边拍照了？",
             "有人练过乐器吗？", "谁参加了公益活动？", "上周末大家都做了什么？", "谁回老家了？"]  # fmt: skip


def chinese_turns(count: int, seed: int = 5) -> list[str]:
    """`count` distinct turns from the templates above."""
    rng = random.Random(seed)
    seen: set[str] = set()
    while len(seen) < count:
        seen.add(f"{rng.choice(PEOPLE)}{rng.choice(TIMES)}在{rng.choice(PLACES)}"
                 f"{rng.choice(ACTS)}，{rng.choice(FEELINGS)}。")  # fmt: skip
    return sorted(seen)


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _model_rss_mb() -> float:
    """What loading the model and embedding a batch adds to a process's resident memory."""
    import threadpoolctl  # noqa: F401  # imported by the model: not part of its cost

    model = UseEmbedder()
    before = _rss_mb()
    model.embed(["我们在5月2号聊了什么？小林上周末去杭州爬山了。"] * 32)
    return round(_rss_mb() - before, 1)


def measure(choice: str, turns: list[str]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="hindsight-multilingual-") as where:
        settings = Settings(data_dir=Path(where), multilingual_embedder=choice)
        with Memory.open(settings=settings) as memory:
            memory.warm()  # loads every model
            started = time.perf_counter()
            memory.store_many([{"content": t, "session_id": f"s{i // 20}"} for i, t in enumerate(turns)])
            stored = len(turns) / (time.perf_counter() - started)
            latencies = []
            for _ in range(5):
                for question in QUESTIONS:
                    began = time.perf_counter()
                    memory.recall(question, top_k=10)
                    latencies.append((time.perf_counter() - began) * 1000)
    return {"multilingual_embedder": choice, "store_many_per_s": round(stored, 1),
            "recall_p50_ms": round(statistics.median(latencies), 1),
            "recall_p95_ms": round(_percentile(latencies, 0.95), 1)}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=400, help="Chinese turns stored")
    parser.add_argument("--rounds", type=int, default=2, help="A/B rounds, alternating order")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--model-rss", action="store_true", help=argparse.SUPPRESS)  # the child
    args = parser.parse_args(argv)
    if args.model_rss:
        print(_model_rss_mb())
        return 0
    # In a process of its own: in this one, memory freed by earlier work would hide the cost.
    child = [sys.executable, "-m", "bench.multilingual", "--model-rss"]
    model_mb = float(subprocess.run(child, capture_output=True, text=True, check=True).stdout)
    turns = chinese_turns(args.episodes)
    runs: dict[str, list[dict[str, Any]]] = {"off": [], "use": []}
    for round_ in range(args.rounds):
        for choice in ("off", "use") if round_ % 2 == 0 else ("use", "off"):
            runs[choice].append(measure(choice, turns))
            gc.collect()
            print(f"round {round_ + 1}/{args.rounds}: {choice} done", file=sys.stderr)
    rows = [
        {key: (round(statistics.median(r[key] for r in results), 1) if key != "multilingual_embedder"
               else choice) for key in results[0]}
        for choice, results in runs.items()
    ]  # fmt: skip
    result = {"episodes": args.episodes, "rounds": args.rounds, "rows": rows, "model_rss_mb": model_mb}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{'multilingual':<14}{'store_many/s':>14}{'recall p50 ms':>15}{'recall p95 ms':>15}")
    for row in rows:
        print(f"{row['multilingual_embedder']:<14}{row['store_many_per_s']:>14}"
              f"{row['recall_p50_ms']:>15}{row['recall_p95_ms']:>15}")  # fmt: skip
    print(f"{args.episodes} Chinese turns, {len(QUESTIONS)} Chinese questions x 5, median of "
          f"{args.rounds} rounds. The multilingual model adds {model_mb} MB of resident memory.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
