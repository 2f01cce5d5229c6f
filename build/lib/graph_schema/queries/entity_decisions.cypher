// name: entity_decisions
// Decisions about an entity, oldest first, with the decision that superseded each (if any)
// and the episode that made it.
// params: namespace, entity (the canonical name, lower case, or one of its aliases)
MATCH (ep:Episode)-[:DECIDED]->(d:Decision)-[:ABOUT]->(en:Entity)
WHERE d.namespace = $namespace
  AND (en.canonical = $entity OR $entity IN en.aliases)
OPTIONAL MATCH (newer:Decision)-[:SUPERSEDES]->(d)
RETURN d.decided_at AS decided_at, d.text AS decision, d.status AS status,
       newer.text AS superseded_by, ep.id AS episode
ORDER BY decided_at
