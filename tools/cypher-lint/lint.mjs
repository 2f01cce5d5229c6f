// Lint Cypher statements with Neo4j's own linter (@neo4j-cypher/language-support).
// stdin:  {"schema": {labels, relationshipTypes, propertyKeys, graphSchema},
//          "statements": [{"name", "text", "params": [..]}]}
// stdout: [{"name", "diagnostics": [{"severity": "error"|"warning", "message"}]}]
// Each statement is linted with exactly its own parameters declared, against the graph's
// labels, types and properties, and Neo4j 5's built-in functions and procedures (APOC left
// out: hindsight must run without it).
import { lintCypherQuery, testData } from '@neo4j-cypher/language-support';

const withoutApoc = (scoped) =>
  Object.fromEntries(
    Object.entries(scoped).map(([version, registry]) => [
      version,
      Object.fromEntries(Object.entries(registry).filter(([name]) => !name.startsWith('apoc.'))),
    ]),
  );

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const severities = { 1: 'error', 2: 'warning', 3: 'information', 4: 'hint' };

const results = input.statements.map(({ name, text, params }) => {
  const dbSchema = {
    ...input.schema,
    functions: withoutApoc(testData.mockSchema.functions),
    procedures: withoutApoc(testData.mockSchema.procedures),
    parameters: Object.fromEntries(params.map((p) => [p, null])),
  };
  const { diagnostics } = lintCypherQuery(text, dbSchema);
  return {
    name,
    diagnostics: diagnostics.map((d) => ({
      severity: severities[d.severity] ?? String(d.severity),
      message: d.message,
    })),
  };
});
process.stdout.write(JSON.stringify(results));
