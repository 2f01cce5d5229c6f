"""The memory's lifecycle: forgetting (TTL, archive, purge, eviction), the audit log, repair
(doctor) and backup, and the façade methods over them (`methods`)."""
