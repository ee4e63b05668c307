package host

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentic-workspace/aw/engine/store"
)

// Principal is who a token speaks for: exactly one {tenant, workspace}.
// Every statement that touches files is scoped by it (WCT-1).
type Principal struct {
	Tenant    string
	Workspace string
	TokenID   string
	Name      string // attribution in workspace.updated (who)
}

// Limits are what capabilities.workspace advertises and writes enforce.
type Limits struct {
	MaxFileBytes int `json:"maxFileBytes"`
	MaxFiles     int `json:"maxFiles"`
	MaxVersions  int `json:"maxVersions"`
}

// DefaultLimits: 1 MiB a file, 1000 files a workspace, 20 versions kept
// besides the head.
var DefaultLimits = Limits{MaxFileBytes: 1 << 20, MaxFiles: 1000, MaxVersions: 20}

// SnapshotTTL is how long a run snapshot stays readable; the versions it
// names are kept at least that long, whatever maxVersions says.
const SnapshotTTL = 7 * 24 * time.Hour

// File is a WorkspaceFile (workspace-file.schema.json).
type File struct {
	Path        string `json:"path"`
	Content     string `json:"content"`
	ContentType string `json:"contentType"`
	Version     int64  `json:"version"`
	ETag        string `json:"etag"`
	UpdatedAt   string `json:"updatedAt"`
}

// Meta is one listed file: a WorkspaceFile's metadata without its body.
type Meta struct {
	Path        string `json:"path"`
	ContentType string `json:"contentType"`
	Version     int64  `json:"version"`
	ETag        string `json:"etag"`
	UpdatedAt   string `json:"updatedAt"`
	Bytes       int64  `json:"bytes"`
}

// Version is one retained version of a path (history), tombstones included.
type Version struct {
	Version    int64    `json:"version"`
	ETag       string   `json:"etag"`
	Deleted    bool     `json:"deleted"`
	Bytes      int64    `json:"bytes"`
	UpdatedAt  string   `json:"updatedAt"`
	UpdatedBy  string   `json:"updatedBy"`
	Redactions []string `json:"redactions"`
}

// Event is workspace.updated: content-free attribution of one write.
type Event struct {
	ID         int64    `json:"id"`
	Type       string   `json:"type"`
	Path       string   `json:"path"`
	Version    int64    `json:"version"`
	Deleted    bool     `json:"deleted"`
	At         string   `json:"at"`
	By         string   `json:"by"`
	Redactions []string `json:"redactions"`
}

// Error is an API error: the HTTP status and the body {code, message, details}.
type Error struct {
	Status  int            `json:"-"`
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func apiError(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

func (e *Error) with(key string, v any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[key] = v
	return e
}

// ETag is a version's opaque token: "v<version>", quoted as HTTP wants.
func ETag(version int64) string { return `"v` + strconv.FormatInt(version, 10) + `"` }

// parseETag reads an If-Match value: "v3", v3, W/"v3" or 3.
func parseETag(s string) (int64, bool) {
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "W/"))
	s = strings.TrimPrefix(strings.Trim(s, `"`), "v")
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n >= 1
}

func stamp(us int64) string { return time.UnixMicro(us).UTC().Format(time.RFC3339Nano) }

// ValidPath is workspace-file.schema.json's pattern
// ^[A-Za-z0-9][A-Za-z0-9._/-]{0,255}$ plus what its description says (no
// "..", no leading "/"), and no empty segment or trailing "/": the
// namespace is flat with "/" in names, and a name must mean one thing.
func ValidPath(p string) bool {
	if p == "" || len(p) > 256 || strings.Contains(p, "..") || strings.Contains(p, "//") || strings.HasSuffix(p, "/") {
		return false
	}
	for i, c := range p {
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '/' && c != '-') {
			return false
		}
	}
	return true
}

func badPath(p string) *Error {
	return apiError(http.StatusBadRequest, "invalid_path",
		"path %q is not a workspace path: letters, digits, '.', '_', '-' and '/', starting with a letter or digit, at most 256 bytes, no '..', no empty segment, no leading or trailing '/'", clip(p, 200)).with("path", clip(p, 200))
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Store is the workspace file store over a DB.
type Store struct {
	db     *DB
	limits Limits
	redact *Redactor
	// written is called after each committed write (the server's
	// in-process wake-up of event streams).
	written func(tenant, workspace string)
	// events is how many events a workspace keeps (EventRetention).
	events int64
}

// NewStore returns the store with its limits and redactor.
func NewStore(db *DB, limits Limits, r *Redactor) *Store {
	return &Store{db: db, limits: limits, redact: r, written: func(string, string) {}, events: EventRetention}
}

// Put creates or replaces path. ifMatch is the caller's If-Match ("" none,
// "*" any existing file); ifNoneMatch "*" creates only.
func (s *Store) Put(ctx context.Context, p Principal, path, content, contentType, ifMatch, ifNoneMatch string) (File, []string, error) {
	if !ValidPath(path) {
		return File{}, nil, badPath(path)
	}
	if !utf8.ValidString(content) || strings.ContainsRune(content, 0) {
		return File{}, nil, apiError(http.StatusBadRequest, "invalid_request", "content must be UTF-8 text without NUL bytes")
	}
	if contentType == "" {
		contentType = "text/markdown"
	}
	if len(contentType) > 255 || strings.ContainsAny(contentType, "\r\n") {
		return File{}, nil, apiError(http.StatusBadRequest, "invalid_request", "contentType must be one line of at most 255 bytes")
	}
	content, ids := s.redact.Apply(content)
	if len(content) > s.limits.MaxFileBytes {
		return File{}, nil, apiError(http.StatusRequestEntityTooLarge, "workspace_too_large",
			"the file is %d bytes, over this host's maxFileBytes (%d): split it or store less", len(content), s.limits.MaxFileBytes).
			with("bytes", len(content)).with("maxFileBytes", s.limits.MaxFileBytes)
	}
	var out File
	err := s.write(ctx, p, path, ifMatch, ifNoneMatch, false, func(w *writeTx) error {
		at := time.Now().UnixMicro()
		if err := w.record(ctx, false, content, contentType, at, ids); err != nil {
			return err
		}
		out = File{Path: path, Content: content, ContentType: contentType, Version: w.version, ETag: ETag(w.version), UpdatedAt: stamp(at)}
		return nil
	})
	return out, ids, err
}

// Delete removes path, leaving a tombstone version.
func (s *Store) Delete(ctx context.Context, p Principal, path, ifMatch string) (int64, error) {
	if !ValidPath(path) {
		return 0, badPath(path)
	}
	var version int64
	err := s.write(ctx, p, path, ifMatch, "", true, func(w *writeTx) error {
		version = w.version
		return w.record(ctx, true, "", "", time.Now().UnixMicro(), nil)
	})
	return version, err
}

type writeTx struct {
	tx      *sql.Tx
	s       *Store
	p       Principal
	path    string
	seq     int64 // this write's workspace sequence number
	version int64 // the version it creates
}

// write runs one write: take the workspace's next seq (which serializes
// the workspace's writers), check the preconditions against the head,
// swap the head in one compare-and-swap statement, then record the
// version and the event, prune, and commit.
func (s *Store) write(ctx context.Context, p Principal, path, ifMatch, ifNoneMatch string, deleting bool, body func(*writeTx) error) error {
	d := s.db
	tx, err := d.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	w := &writeTx{tx: tx, s: s, p: p, path: path}
	if err := tx.QueryRowContext(ctx, d.q(`INSERT INTO workspaces (tenant, workspace, seq) VALUES (?, ?, 1)
		ON CONFLICT (tenant, workspace) DO UPDATE SET seq = workspaces.seq + 1 RETURNING seq`), p.Tenant, p.Workspace).Scan(&w.seq); err != nil {
		return err
	}
	var cur int64
	var deleted int
	err = tx.QueryRowContext(ctx, d.q(`SELECT version, deleted FROM files WHERE tenant = ? AND workspace = ? AND path = ?`), p.Tenant, p.Workspace, path).Scan(&cur, &deleted)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	exists := err == nil && deleted == 0
	conflict := func(why string) error {
		e := apiError(http.StatusConflict, "workspace_conflict", "%s: read the file again (its version is %d) and retry with If-Match: %s", why, cur, ETag(max(cur, 1)))
		return e.with("currentVersion", cur).with("exists", exists)
	}
	switch {
	case ifMatch == "*" && !exists:
		return conflict("If-Match: * needs an existing file and " + path + " does not exist")
	case ifMatch != "" && ifMatch != "*":
		want, ok := parseETag(ifMatch)
		if !ok {
			return apiError(http.StatusBadRequest, "invalid_request", `If-Match %q is not an etag this host issued (such as "v3")`, clip(ifMatch, 100))
		}
		if !exists || want != cur {
			return conflict(fmt.Sprintf("If-Match %s is stale", ETag(want)))
		}
	}
	if strings.TrimSpace(ifNoneMatch) == "*" && exists {
		return conflict("If-None-Match: * creates only and " + path + " exists")
	}
	if deleting && !exists {
		return apiError(http.StatusNotFound, "not_found", "%s does not exist in this workspace", path).with("path", path)
	}
	if !deleting && !exists {
		var n int
		if err := tx.QueryRowContext(ctx, d.q(`SELECT COUNT(*) FROM files WHERE tenant = ? AND workspace = ? AND deleted = 0`), p.Tenant, p.Workspace).Scan(&n); err != nil {
			return err
		}
		if n >= s.limits.MaxFiles {
			return apiError(http.StatusRequestEntityTooLarge, "workspace_too_large",
				"the workspace holds %d files, this host's maxFiles: delete one before creating %s", n, path).
				with("files", n).with("maxFiles", s.limits.MaxFiles)
		}
	}
	w.version = cur + 1
	res, err := tx.ExecContext(ctx, d.q(`INSERT INTO files (tenant, workspace, path, version, deleted) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (tenant, workspace, path) DO UPDATE SET version = excluded.version, deleted = excluded.deleted
		WHERE files.version = ?`), p.Tenant, p.Workspace, path, w.version, b2i(deleting), cur)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return conflict("another write won")
	}
	if err := body(w); err != nil {
		return err
	}
	if err := w.prune(ctx); err != nil {
		return err
	}
	if d.postgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_notify('aw_host_workspace', $1)`, p.Tenant+"\n"+p.Workspace); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	s.written(p.Tenant, p.Workspace)
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (w *writeTx) record(ctx context.Context, deleted bool, content, contentType string, at int64, ids []string) error {
	d := w.s.db
	red, _ := json.Marshal(nonNil(ids))
	if _, err := w.tx.ExecContext(ctx, d.q(`INSERT INTO versions (tenant, workspace, path, version, seq, deleted, content, content_type, bytes, updated_at, updated_by, redactions)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		w.p.Tenant, w.p.Workspace, w.path, w.version, w.seq, b2i(deleted), content, contentType, len(content), at, w.p.Name, string(red)); err != nil {
		return err
	}
	_, err := w.tx.ExecContext(ctx, d.q(`INSERT INTO events (tenant, workspace, seq, path, version, deleted, at, by, redactions) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		w.p.Tenant, w.p.Workspace, w.seq, w.path, w.version, b2i(deleted), at, w.p.Name, string(red))
	return err
}

// EventRetention is how many events a workspace keeps for resuming
// streams; a Last-Event-ID older than that gets workspace.gap first.
const EventRetention = 10000

// prune drops versions of the path older than the head's maxVersions
// predecessors, except one a live snapshot still reads (the newest version
// at or before the snapshot's seq), and old events now and then.
func (w *writeTx) prune(ctx context.Context) error {
	d := w.s.db
	keepFrom := w.version - int64(w.s.limits.MaxVersions)
	if keepFrom > 1 {
		if _, err := w.tx.ExecContext(ctx, d.q(`DELETE FROM versions WHERE tenant = ? AND workspace = ? AND path = ? AND version < ?
			AND NOT EXISTS (SELECT 1 FROM snapshots s WHERE s.tenant = versions.tenant AND s.workspace = versions.workspace AND s.seq >= versions.seq
				AND NOT EXISTS (SELECT 1 FROM versions v2 WHERE v2.tenant = versions.tenant AND v2.workspace = versions.workspace AND v2.path = versions.path
					AND v2.seq > versions.seq AND v2.seq <= s.seq))`),
			w.p.Tenant, w.p.Workspace, w.path, keepFrom); err != nil {
			return err
		}
	}
	if keep := w.s.events; w.seq%min(256, keep) == 0 {
		if _, err := w.tx.ExecContext(ctx, d.q(`DELETE FROM events WHERE tenant = ? AND workspace = ? AND seq <= ?`), w.p.Tenant, w.p.Workspace, w.seq-keep); err != nil {
			return err
		}
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// snapshotSeq resolves a snapshot id owned by the principal; anyone
// else's id is not found, exactly like an unknown one (WCT-1).
func (s *Store) snapshotSeq(ctx context.Context, p Principal, id string) (int64, error) {
	var seq int64
	err := s.db.sql.QueryRowContext(ctx, s.db.q(`SELECT seq FROM snapshots WHERE id = ? AND tenant = ? AND workspace = ? AND created_at > ?`),
		id, p.Tenant, p.Workspace, time.Now().Add(-SnapshotTTL).UnixMicro()).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, apiError(http.StatusNotFound, "snapshot_not_found", "snapshot %q is unknown to this workspace or expired (snapshots last %s): start a run for a new one", clip(id, 100), SnapshotTTL).with("snapshot", clip(id, 100))
	}
	return seq, err
}

// Get reads the head of path, or version (>0), or the path as of a snapshot.
func (s *Store) Get(ctx context.Context, p Principal, path string, version int64, snapshot string) (File, error) {
	if !ValidPath(path) {
		return File{}, badPath(path)
	}
	d := s.db
	const cols = `SELECT v.version, v.deleted, v.content, v.content_type, v.updated_at FROM versions v `
	var row *sql.Row
	switch {
	case snapshot != "":
		seq, err := s.snapshotSeq(ctx, p, snapshot)
		if err != nil {
			return File{}, err
		}
		row = d.sql.QueryRowContext(ctx, d.q(cols+`WHERE v.tenant = ? AND v.workspace = ? AND v.path = ? AND v.seq <= ? ORDER BY v.seq DESC LIMIT 1`), p.Tenant, p.Workspace, path, seq)
	case version > 0:
		row = d.sql.QueryRowContext(ctx, d.q(cols+`WHERE v.tenant = ? AND v.workspace = ? AND v.path = ? AND v.version = ?`), p.Tenant, p.Workspace, path, version)
	default:
		row = d.sql.QueryRowContext(ctx, d.q(cols+`JOIN files f ON f.tenant = v.tenant AND f.workspace = v.workspace AND f.path = v.path AND f.version = v.version
			WHERE f.tenant = ? AND f.workspace = ? AND f.path = ?`), p.Tenant, p.Workspace, path)
	}
	var f File
	var deleted int
	var at int64
	err := row.Scan(&f.Version, &deleted, &f.Content, &f.ContentType, &at)
	if errors.Is(err, sql.ErrNoRows) || err == nil && deleted == 1 {
		return File{}, s.notFound(ctx, p, path, version, snapshot, err == nil)
	}
	if err != nil {
		return File{}, err
	}
	f.Path, f.ETag, f.UpdatedAt = path, ETag(f.Version), stamp(at)
	return f, nil
}

// notFound says why: absent, deleted, or a version not retained.
func (s *Store) notFound(ctx context.Context, p Principal, path string, version int64, snapshot string, tombstone bool) error {
	e := apiError(http.StatusNotFound, "not_found", "%s does not exist in this workspace", path).with("path", path)
	switch {
	case snapshot != "":
		e.Message = path + " does not exist in snapshot " + snapshot
	case version > 0 && tombstone:
		e.Message = fmt.Sprintf("version %d of %s is its deletion (a tombstone): read an earlier version", version, path)
		e = e.with("deleted", true)
	case version > 0:
		var head int64
		_ = s.db.sql.QueryRowContext(ctx, s.db.q(`SELECT version FROM files WHERE tenant = ? AND workspace = ? AND path = ?`), p.Tenant, p.Workspace, path).Scan(&head)
		e.Message = fmt.Sprintf("version %d of %s is not retained (the head is version %d; this host keeps %d versions before it): see its history", version, path, head, s.limits.MaxVersions)
		e = e.with("version", version).with("currentVersion", head)
	case tombstone:
		e.Message = path + " was deleted: its history keeps earlier versions"
		e = e.with("deleted", true)
	}
	return e
}

// List lists live files (metadata only) whose path starts with prefix, at
// the head or as of a snapshot, ordered by path.
func (s *Store) List(ctx context.Context, p Principal, prefix, snapshot string) ([]Meta, error) {
	if prefix != "" && (len(prefix) > 256 || strings.ContainsAny(prefix, "\x00")) {
		return nil, apiError(http.StatusBadRequest, "invalid_request", "prefix is longer than a path can be")
	}
	d := s.db
	// Matching the prefix by range, not LIKE: no wildcard in a path
	// can widen it, and both databases compare bytes the same way for
	// the path alphabet.
	lo, hi := prefix, prefix+"\x7f"
	var rows *sql.Rows
	var err error
	if snapshot != "" {
		seq, serr := s.snapshotSeq(ctx, p, snapshot)
		if serr != nil {
			return nil, serr
		}
		rows, err = d.sql.QueryContext(ctx, d.q(`SELECT v.path, v.content_type, v.version, v.updated_at, v.bytes, v.deleted FROM versions v
			WHERE v.tenant = ? AND v.workspace = ? AND v.path >= ? AND v.path < ? AND v.seq = (SELECT MAX(v2.seq) FROM versions v2
				WHERE v2.tenant = v.tenant AND v2.workspace = v.workspace AND v2.path = v.path AND v2.seq <= ?)
			ORDER BY v.path`), p.Tenant, p.Workspace, lo, hi, seq)
	} else {
		rows, err = d.sql.QueryContext(ctx, d.q(`SELECT v.path, v.content_type, v.version, v.updated_at, v.bytes, f.deleted FROM files f
			JOIN versions v ON v.tenant = f.tenant AND v.workspace = f.workspace AND v.path = f.path AND v.version = f.version
			WHERE f.tenant = ? AND f.workspace = ? AND f.path >= ? AND f.path < ? AND f.deleted = 0 ORDER BY f.path`), p.Tenant, p.Workspace, lo, hi)
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Meta{}
	for rows.Next() {
		var m Meta
		var at int64
		var deleted int
		if err := rows.Scan(&m.Path, &m.ContentType, &m.Version, &at, &m.Bytes, &deleted); err != nil {
			return nil, err
		}
		if deleted == 1 {
			continue
		}
		m.ETag, m.UpdatedAt = ETag(m.Version), stamp(at)
		out = append(out, m)
	}
	return out, rows.Err()
}

// History lists the retained versions of path, newest first.
func (s *Store) History(ctx context.Context, p Principal, path string) ([]Version, error) {
	if !ValidPath(path) {
		return nil, badPath(path)
	}
	rows, err := s.db.sql.QueryContext(ctx, s.db.q(`SELECT version, deleted, bytes, updated_at, updated_by, redactions FROM versions
		WHERE tenant = ? AND workspace = ? AND path = ? ORDER BY version DESC`), p.Tenant, p.Workspace, path)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Version{}
	for rows.Next() {
		var v Version
		var deleted int
		var at int64
		var red string
		if err := rows.Scan(&v.Version, &deleted, &v.Bytes, &at, &v.UpdatedBy, &red); err != nil {
			return nil, err
		}
		v.Deleted, v.ETag, v.UpdatedAt = deleted == 1, ETag(v.Version), stamp(at)
		_ = json.Unmarshal([]byte(red), &v.Redactions)
		v.Redactions = nonNil(v.Redactions)
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, apiError(http.StatusNotFound, "not_found", "%s has no history in this workspace", path).with("path", path)
	}
	return out, nil
}

// Events returns up to limit events after seq, oldest first, and the
// oldest seq still retained (0 when there is none).
func (s *Store) Events(ctx context.Context, p Principal, after int64, limit int) ([]Event, int64, error) {
	d := s.db
	var oldest sql.NullInt64
	if err := d.sql.QueryRowContext(ctx, d.q(`SELECT MIN(seq) FROM events WHERE tenant = ? AND workspace = ?`), p.Tenant, p.Workspace).Scan(&oldest); err != nil {
		return nil, 0, err
	}
	rows, err := d.sql.QueryContext(ctx, d.q(`SELECT seq, path, version, deleted, at, by, redactions FROM events
		WHERE tenant = ? AND workspace = ? AND seq > ? ORDER BY seq LIMIT ?`), p.Tenant, p.Workspace, after, limit)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		e := Event{Type: "workspace.updated"}
		var deleted int
		var at int64
		var red string
		if err := rows.Scan(&e.ID, &e.Path, &e.Version, &deleted, &at, &e.By, &red); err != nil {
			return nil, 0, err
		}
		e.Deleted, e.At = deleted == 1, stamp(at)
		_ = json.Unmarshal([]byte(red), &e.Redactions)
		e.Redactions = nonNil(e.Redactions)
		out = append(out, e)
	}
	return out, oldest.Int64, rows.Err()
}

// Run is a recorded run start and the snapshot it reads.
type Run struct {
	RunID       string `json:"runId"`
	SnapshotID  string `json:"snapshotId"`
	ParentRunID string `json:"parentRunId,omitempty"`
	Seq         int64  `json:"seq"`
	CreatedAt   string `json:"createdAt"`
}

// StartRun records a run start: a new snapshot of the workspace as it is
// now, or the parent run's snapshot for a sub-agent (§D: sub-agents
// inherit the parent's ground truth).
func (s *Store) StartRun(ctx context.Context, p Principal, parent string) (Run, error) {
	d := s.db
	now := time.Now()
	r := Run{RunID: store.NewID("run"), ParentRunID: parent, CreatedAt: now.UTC().Format(time.RFC3339Nano)}
	tx, err := d.sql.BeginTx(ctx, nil)
	if err != nil {
		return Run{}, err
	}
	defer tx.Rollback()
	if parent != "" {
		err := tx.QueryRowContext(ctx, d.q(`SELECT r.snapshot_id, s.seq FROM runs r JOIN snapshots s ON s.id = r.snapshot_id
			WHERE r.id = ? AND r.tenant = ? AND r.workspace = ? AND s.created_at > ?`), parent, p.Tenant, p.Workspace, now.Add(-SnapshotTTL).UnixMicro()).Scan(&r.SnapshotID, &r.Seq)
		if errors.Is(err, sql.ErrNoRows) {
			return Run{}, apiError(http.StatusNotFound, "not_found", "parent run %q is unknown to this workspace or its snapshot expired", clip(parent, 100)).with("parentRunId", clip(parent, 100))
		}
		if err != nil {
			return Run{}, err
		}
	} else {
		// The committed seq: every write numbered at or below it has
		// committed (a workspace's writers are serialized by its row).
		seq, err := s.CurrentSeq(ctx, p)
		if err != nil {
			return Run{}, err
		}
		r.Seq = seq
		r.SnapshotID = store.NewID("snapshot")
		if _, err := tx.ExecContext(ctx, d.q(`INSERT INTO snapshots (id, tenant, workspace, seq, created_at) VALUES (?, ?, ?, ?, ?)`), r.SnapshotID, p.Tenant, p.Workspace, r.Seq, now.UnixMicro()); err != nil {
			return Run{}, err
		}
		if _, err := tx.ExecContext(ctx, d.q(`DELETE FROM snapshots WHERE tenant = ? AND workspace = ? AND created_at <= ?`), p.Tenant, p.Workspace, now.Add(-SnapshotTTL).UnixMicro()); err != nil {
			return Run{}, err
		}
		if _, err := tx.ExecContext(ctx, d.q(`DELETE FROM runs WHERE tenant = ? AND workspace = ? AND created_at <= ?`), p.Tenant, p.Workspace, now.Add(-SnapshotTTL).UnixMicro()); err != nil {
			return Run{}, err
		}
	}
	var parentArg any
	if parent != "" {
		parentArg = parent
	}
	if _, err := tx.ExecContext(ctx, d.q(`INSERT INTO runs (id, tenant, workspace, snapshot_id, parent_id, created_at) VALUES (?, ?, ?, ?, ?, ?)`), r.RunID, p.Tenant, p.Workspace, r.SnapshotID, parentArg, now.UnixMicro()); err != nil {
		return Run{}, err
	}
	return r, tx.Commit()
}

// CurrentSeq is the workspace's last committed write (0 before any).
func (s *Store) CurrentSeq(ctx context.Context, p Principal) (int64, error) {
	var seq int64
	err := s.db.sql.QueryRowContext(ctx, s.db.q(`SELECT seq FROM workspaces WHERE tenant = ? AND workspace = ?`), p.Tenant, p.Workspace).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return seq, err
}
