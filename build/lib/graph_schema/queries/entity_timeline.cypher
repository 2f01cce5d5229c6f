// name: entity_timeline
// An entity's timeline: every live episode that mentions it, oldest first, with who said it.
// params: namespace, entity (the canonical name, lower case, or one of its aliases)
MATCH (ep:Episode)-[:MENTIONS]->(en:Entity)
WHERE en.namespace = $namespace
  AND (en.canonical = $entity OR $entity IN en.aliases)
  AND ep.deleted_at IS NULL AND ep.archived_at IS NULL
RETURN ep.occurred_at AS occurred_at, ep.session_id AS session, ep.role AS role,
       ep.content AS content, ep.id AS episode
ORDER BY occurred_at
LIMIT 200
