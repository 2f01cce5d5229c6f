// name: session_mentions
// Who mentioned what in a session: each speaker (role) and entity, with how many turns.
// params: namespace, session (the session id given when storing)
MATCH (ep:Episode)-[:IN_SESSION]->(s:Session)
WHERE s.namespace = $namespace AND s.name = $session AND ep.deleted_at IS NULL
MATCH (ep)-[:MENTIONS]->(en:Entity)
RETURN ep.role AS speaker, en.name AS entity, count(ep) AS turns
ORDER BY turns DESC, speaker, entity
