"""Read-only Cypher for analysts: Neo4j's Cypher 5 grammar, the read-only and scope checks, the
schema procedures answered from hindsight's own schema, and the query that ties them together."""
