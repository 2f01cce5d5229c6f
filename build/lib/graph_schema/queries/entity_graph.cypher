// name: entity_graph
// An entity's neighbourhood as a graph, for Neo4j Browser: the live episodes that mention it
// with their sessions, the decisions about it, and its facts.
// params: namespace, entity (the canonical name, lower case, or one of its aliases)
MATCH (en:Entity)
WHERE en.namespace = $namespace AND (en.canonical = $entity OR $entity IN en.aliases)
MATCH mention = (ep:Episode)-[:MENTIONS]->(en)
WHERE ep.deleted_at IS NULL AND ep.archived_at IS NULL
OPTIONAL MATCH session = (ep)-[:IN_SESSION]->(:Session)
OPTIONAL MATCH decision = (:Decision)-[:ABOUT]->(en)
OPTIONAL MATCH fact = (en)-[:FACT]-(:Entity)
RETURN mention, session, decision, fact
LIMIT 300
