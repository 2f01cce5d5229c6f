// name: search_text
// Episodes whose content or summary contains a word or phrase (any case), newest first.
// It reads the namespace's episodes only: the full-text index is not offered to analysts,
// because its scores (and the order of its rows) count the words of every namespace.
// params: namespace, text (a word or phrase, e.g. postgres)
MATCH (node:Episode)
WHERE node.namespace = $namespace AND node.deleted_at IS NULL
  AND (toLower(node.content) CONTAINS toLower($text)
       OR toLower(coalesce(node.summary, '')) CONTAINS toLower($text))
RETURN node.occurred_at AS occurred_at, node.role AS role, node.content AS content
ORDER BY occurred_at DESC
LIMIT 50
