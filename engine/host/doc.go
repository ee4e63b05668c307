// Package host is the host.workspace store and its HTTP API, served by
// `aw serve`, and the client `aw host` uses: named, versioned files an
// agent treats as ground truth (identity, directives, a memory index),
// scoped to one {tenant, workspace}.
//
// The API: GET /v1/host/capabilities (capabilities.workspace), GET
// /v1/host/workspace/files[?prefix=&snapshot=] (metadata), GET|PUT|DELETE
// /v1/host/workspace/files/{path} (?version=, ?snapshot=, If-Match,
// If-None-Match: *), GET /v1/host/workspace/history/{path}, GET
// /v1/host/workspace/events (workspace.updated as Server-Sent Events,
// resumable with Last-Event-ID), POST /v1/host/runs (a run's read
// snapshot; a sub-agent passes parentRunId and shares it), and
// /v1/openapi.json, the committed OpenAPI 3.1 document. Errors are one
// shape: {code, message, details}.
//
// Decisions where the RFC is silent:
//
//   - Paths are a flat namespace with '/' in names (the RFC's Phase-0
//     ruling); beyond the schema's pattern, "..", empty segments and a
//     trailing '/' are refused, so one name means one file. The router
//     reads the escaped path itself: nothing is cleaned or redirected.
//   - Versions are monotonic per path across deletes: a DELETE writes a
//     tombstone version, a later PUT continues after it. The head and
//     maxVersions earlier versions are kept, plus whatever a live run
//     snapshot reads (snapshots last SnapshotTTL).
//   - A workspace's writes are serialized by its row in workspaces (its
//     seq): event ids are gap-free and commit in order, so a snapshot is a
//     seq and a resumed stream misses nothing. The head is swapped by one
//     compare-and-swap statement. On PostgreSQL, NOTIFY wakes the event
//     streams of every replica; they always re-read the events table, and
//     poll as a fallback.
//   - A write's content is redacted (WSR-1) before the size check and
//     before it is stored: registered secrets first (their ids), then
//     secret-shaped values. The ids go to the version's history, the
//     event and the Workspace-Redactions response header.
//   - over maxFiles is workspace_too_large like over maxFileBytes (413),
//     with details.maxFiles; If-Match on a missing file is
//     workspace_conflict with currentVersion 0 (or the tombstone's).
//   - Tokens are stored as SHA-256 only; every token refusal is the same
//     401, and another principal's ids answer exactly like unknown ones.
package host
