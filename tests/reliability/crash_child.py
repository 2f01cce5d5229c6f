"""Child of test_crash: store batches forever, printing each batch's ids once `store_many`
has returned (acknowledged), until killed."""

from __future__ import annotations

import sys

from engine import Memory

data_dir, run = sys.argv[1], sys.argv[2]
with Memory.open(data_dir) as memory:
    print("ready", flush=True)
    batch = 0
    while True:
        items = [
            {"content": f"crash run {run} batch {batch} item {i}: token r{run}b{batch}i{i} "
                        f"about Project Orion and the Lisbon office", "session_id": f"s{run}",
             "importance": 0.8}
            for i in range(8)
        ]  # fmt: skip
        results = memory.store_many(items)
        print(" ".join(r.id for r in results), flush=True)
        batch += 1
