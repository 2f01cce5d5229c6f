// name: session_digest
// A session's digest: when it ran, who took part, its topics and decisions, its central
// sentences, and how many episodes it was built from.
// params: namespace, session (the session id given when storing)
MATCH (d:Digest)-[:DIGEST_OF]->(s:Session)
WHERE d.namespace = $namespace AND s.name = $session
RETURN d.text AS digest, d.started_at AS started_at, d.ended_at AS ended_at,
       d.participants AS participants, d.topics AS topics, d.decisions AS decisions,
       size(d.episode_ids) AS episodes
