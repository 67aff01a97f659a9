-- a2a-store-sql, PostgreSQL: the tables of `PgCluster` (several replicas of
-- one agent sharing this database).
--
-- `a2a_leases`: one row per task executing on some replica; the owner renews
-- `expires_at` while it runs the task and deletes the row when done. A row
-- past `expires_at` belongs to a replica that died: another replica deletes
-- it and fails the task.
--
-- `a2a_cluster_events`: the messages between replicas. NOTIFY payloads are
-- limited to 8000 bytes, so a message is a row and the notification on
-- channel `a2a_cluster` only carries its id. Publishers serialise on an
-- advisory lock, so ids are committed in id order and readers read `id >
-- last seen`. Rows are pruned after a retention time (10 minutes by default).

CREATE TABLE a2a_leases (
    task_id     text        NOT NULL PRIMARY KEY,
    owner       text        NOT NULL,
    expires_at  timestamptz NOT NULL
);

CREATE INDEX a2a_leases_expires_at ON a2a_leases (expires_at);

CREATE TABLE a2a_cluster_events (
    id          bigserial   NOT NULL PRIMARY KEY,
    origin      text        NOT NULL,
    task_id     text        NOT NULL,
    payload     text        NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX a2a_cluster_events_created_at ON a2a_cluster_events (created_at);
