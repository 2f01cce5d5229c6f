// name: entity_facts
// Semantic facts about an entity (FACT edges written by reflection), most confident first.
// A fact with valid_to set was contradicted by newer evidence (invalidated_by names the fact
// that replaced it): it is kept for history, never deleted.
// params: namespace, entity (the canonical name, lower case)
MATCH (a:Entity)-[f:FACT]->(b:Entity)
WHERE a.namespace = $namespace AND (a.canonical = $entity OR b.canonical = $entity)
RETURN a.name AS subject, f.predicate AS predicate, b.name AS object,
       f.confidence AS confidence, f.support AS support, f.statement AS statement,
       f.valid_from AS valid_from, f.valid_to AS valid_to, f.invalidated_by AS invalidated_by
ORDER BY confidence DESC
