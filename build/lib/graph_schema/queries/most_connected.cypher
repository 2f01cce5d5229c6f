// name: most_connected
// The most connected entities of a namespace: how many live episodes mention each. The top
// ones are often hubs (the user, the agent) that recall leaves out of graph expansion.
// params: namespace, limit (how many entities, e.g. 20)
MATCH (ep:Episode)-[:MENTIONS]->(en:Entity)
WHERE en.namespace = $namespace AND ep.deleted_at IS NULL AND ep.archived_at IS NULL
RETURN en.name AS entity, en.type AS type, count(ep) AS episodes
ORDER BY episodes DESC, entity
LIMIT $limit
