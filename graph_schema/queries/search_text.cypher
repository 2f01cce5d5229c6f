// name: search_text
// Full-text search over episode content and summaries (the episode_text index), best first.
// Neo4j only: the embedded backend has no full-text index (recall's keyword channel is BM25
// in the vector store on every backend).
// backends: neo4j
// params: namespace, text (Lucene syntax: words, "a phrase", postgres~ for fuzzy)
CALL db.index.fulltext.queryNodes('episode_text', $text) YIELD node, score
WHERE node.namespace = $namespace AND node.deleted_at IS NULL
RETURN node.occurred_at AS occurred_at, node.role AS role, node.content AS content, score
ORDER BY score DESC
LIMIT 50
