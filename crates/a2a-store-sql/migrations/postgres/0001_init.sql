-- a2a-store-sql, PostgreSQL: the task and push-config tables.
--
-- `task` is the whole task as jsonb in the A2A JSON-RPC shape (the serde
-- shape of `a2a_types::Task`); `context_id` and `state` mirror it for queries.
-- `version` is the optimistic-concurrency version: 1 on insert, +1 on every
-- successful update (see the crate docs).

CREATE TABLE a2a_tasks (
    id          text        NOT NULL PRIMARY KEY,
    context_id  text        NOT NULL,
    version     bigint      NOT NULL CHECK (version >= 1),
    state       text        NOT NULL,
    task        jsonb       NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX a2a_tasks_context_id ON a2a_tasks (context_id);

-- One row per (task, config id); `seq` keeps insertion order (a replaced
-- config keeps its place). No foreign key: a config may be set before the
-- task is first saved, as with the in-memory store.
CREATE TABLE a2a_push_configs (
    task_id    text   NOT NULL,
    config_id  text   NOT NULL,
    seq        bigint GENERATED ALWAYS AS IDENTITY,
    config     jsonb  NOT NULL,
    PRIMARY KEY (task_id, config_id)
);

CREATE INDEX a2a_push_configs_order ON a2a_push_configs (task_id, seq);
