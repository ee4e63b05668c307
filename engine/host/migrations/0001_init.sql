-- One schema for SQLite and PostgreSQL: portable types only (TEXT, BIGINT,
-- INTEGER), times as Unix microseconds, booleans as 0/1.

CREATE TABLE tokens (
  id          TEXT PRIMARY KEY,
  hash        TEXT NOT NULL UNIQUE,
  tenant      TEXT NOT NULL,
  workspace   TEXT NOT NULL,
  name        TEXT NOT NULL,
  created_at  BIGINT NOT NULL,
  revoked_at  BIGINT
);

-- One row per {tenant, workspace}: seq numbers its writes, and updating it
-- first serializes the writers of one workspace (the row lock).
CREATE TABLE workspaces (
  tenant     TEXT NOT NULL,
  workspace  TEXT NOT NULL,
  seq        BIGINT NOT NULL,
  PRIMARY KEY (tenant, workspace)
);

-- The head of each path: which version is current (or a tombstone).
CREATE TABLE files (
  tenant      TEXT NOT NULL,
  workspace   TEXT NOT NULL,
  path        TEXT NOT NULL,
  version     BIGINT NOT NULL,
  deleted     INTEGER NOT NULL,
  PRIMARY KEY (tenant, workspace, path)
);

-- Every retained version, the head's included; seq is the workspace write
-- that made it, which is what a run snapshot reads as of.
CREATE TABLE versions (
  tenant        TEXT NOT NULL,
  workspace     TEXT NOT NULL,
  path          TEXT NOT NULL,
  version       BIGINT NOT NULL,
  seq           BIGINT NOT NULL,
  deleted       INTEGER NOT NULL,
  content       TEXT NOT NULL,
  content_type  TEXT NOT NULL,
  bytes         BIGINT NOT NULL,
  updated_at    BIGINT NOT NULL,
  updated_by    TEXT NOT NULL,
  redactions    TEXT NOT NULL,
  PRIMARY KEY (tenant, workspace, path, version)
);
CREATE INDEX versions_by_seq ON versions (tenant, workspace, seq);

-- workspace.updated, content-free, numbered by the workspace's seq.
CREATE TABLE events (
  tenant      TEXT NOT NULL,
  workspace   TEXT NOT NULL,
  seq         BIGINT NOT NULL,
  path        TEXT NOT NULL,
  version     BIGINT NOT NULL,
  deleted     INTEGER NOT NULL,
  at          BIGINT NOT NULL,
  by          TEXT NOT NULL,
  redactions  TEXT NOT NULL,
  PRIMARY KEY (tenant, workspace, seq)
);

-- A snapshot is a workspace as of one seq; runs name the snapshot they read.
CREATE TABLE snapshots (
  id          TEXT PRIMARY KEY,
  tenant      TEXT NOT NULL,
  workspace   TEXT NOT NULL,
  seq         BIGINT NOT NULL,
  created_at  BIGINT NOT NULL
);
CREATE INDEX snapshots_by_workspace ON snapshots (tenant, workspace, seq);

CREATE TABLE runs (
  id           TEXT PRIMARY KEY,
  tenant       TEXT NOT NULL,
  workspace    TEXT NOT NULL,
  snapshot_id  TEXT NOT NULL,
  parent_id    TEXT,
  created_at   BIGINT NOT NULL
);
