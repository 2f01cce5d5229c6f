// name: error_fixes
// How an error was got past: each failure that showed an error signature, the step that fixed
// it (RESOLVED_BY) and whether that fix held, newest first. A signature's name is the error
// with its volatile parts normalised ("HTTP 503: connection pool exhausted: <n> of <n> ...").
// params: namespace, signature (its canonical name or alias, lower case, as `hindsight entity show` prints it)
MATCH (s:Entity)<-[:MENTIONS]-(failure:Episode)-[r:RESOLVED_BY]->(fix:Episode)
WHERE s.namespace = $namespace AND s.type = 'SIGNATURE' AND (s.canonical = $signature OR $signature IN s.aliases)
RETURN s.name AS error, failure.content AS failure, fix.content AS fix, r.held AS held,
       r.derived_by AS derived_by, fix.occurred_at AS fixed_at
ORDER BY fixed_at DESC
