package edit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Result is the data of every edit action: the transaction, its files and,
// when staged, the approval; scripts rely on its field names. When a gated
// call is staged, status is "pending_approval" with mode and approval, and
// the transaction's own status moves to transactionStatus.
type Result struct {
	TransactionID      string             `json:"transactionId"`
	Status             string             `json:"status"`
	Mode               string             `json:"mode,omitempty"`
	Approval           *gate.StagedRecord `json:"approval,omitempty"`
	TransactionStatus  string             `json:"transactionStatus,omitempty"`
	Destructive        bool               `json:"destructive"`
	DestructiveReasons []string           `json:"destructiveReasons"`
	Replacements       []Replacement      `json:"replacements,omitempty"`
	// Operations, Files and Directories hold at most ListCap entries;
	// the counts and *Truncated say when there are more.
	Operations           []OpSummary  `json:"operations"`
	OperationCount       int          `json:"operationCount"`
	OperationsTruncated  bool         `json:"operationsTruncated,omitempty"`
	Files                []FileChange `json:"files"`
	FileCount            int          `json:"fileCount"`
	FilesTruncated       bool         `json:"filesTruncated,omitempty"`
	Directories          []DirChange  `json:"directories"`
	DirectoryCount       int          `json:"directoryCount"`
	DirectoriesTruncated bool         `json:"directoriesTruncated,omitempty"`
	DiffPreview          string       `json:"diffPreview"`
	DiffTruncated        bool         `json:"diffTruncated,omitempty"`
	Committed            bool         `json:"committed"`
	NoOp                 bool         `json:"noOp,omitempty"`
	LeftDirectories      []string     `json:"leftDirectories,omitempty"`
	Error                string       `json:"error,omitempty"`
	CreatedAt            time.Time    `json:"createdAt"`
	// Diagnostics are those a commit newly introduced (engine/lsp).
	Diagnostics any `json:"diagnostics,omitempty"`
}

// SetDiagnostics folds a commit's new diagnostics into its result.
func (r *Result) SetDiagnostics(d any) { r.Diagnostics = d }

// PendingApproval makes a staged result exit 3.
func (r *Result) PendingApproval() bool { return r.Status == "pending_approval" }

// Preview plans a transaction: nothing in the workspace changes.
func Preview(ctx context.Context, ws *workspace.Workspace, req *PreviewRequest) (envelope.Envelope, error) {
	tx, _, err := plan(ws, req)
	if err != nil {
		return envelope.Envelope{}, err
	}
	return result(ws, tx, ""), nil
}

// Apply is preview plus commit, gated as a commit of the planned
// transaction: when staged, the transaction stays planned and the resume
// call is commit with its id.
func Apply(ctx context.Context, ws *workspace.Workspace, req *PreviewRequest) (envelope.Envelope, error) {
	tx, reused, err := plan(ws, req)
	if err != nil {
		return envelope.Envelope{}, err
	}
	env, err := commit(ws, tx, req.Operations)
	if err != nil {
		return envelope.Envelope{}, err
	}
	// Re-issuing a pending apply returns the pending approval, which names
	// the first transaction: this one is a duplicate and is dropped.
	if r, ok := env.Data.(*Result); ok && r.Approval != nil && !reused && r.Approval.Resume.Arguments["transaction_id"] != tx.ID {
		os.RemoveAll(txDir(ws, tx.ID))
	}
	return env, nil
}

// Commit writes a planned transaction (gated).
func Commit(ctx context.Context, ws *workspace.Workspace, req *TxRequest) (envelope.Envelope, error) {
	tx, err := load(ws, req.TransactionID)
	if err != nil {
		return envelope.Envelope{}, err
	}
	return commit(ws, tx, nil)
}

// commit writes tx once the gate allows it. ops, given by apply, are the
// operations to plan again under the store lock when the files changed
// since the preview (see replan); commit TX passes none, so it writes
// exactly what was previewed or fails stale.
func commit(ws *workspace.Workspace, tx *Transaction, ops []Op) (envelope.Envelope, error) {
	switch tx.Status {
	case Applied:
		env := result(ws, tx, fmt.Sprintf("Transaction %s is already applied: nothing to do (a no-op, never staged).", tx.ID))
		env.Data.(*Result).NoOp = true
		return env, nil
	case Planned:
	default:
		return envelope.Envelope{}, envelope.Errorf(envelope.TransactionState,
			"transaction %s is %s and cannot be committed; preview the operations again for a new transaction", tx.ID, tx.Status).With("transactionId", tx.ID)
	}
	if err := verify(ws, tx, before); err != nil && !replannable(ops, err) {
		return envelope.Envelope{}, err
	}
	d, err := gate.Check(ws, gate.Operation{
		Kind:        "transaction",
		Title:       title("Commit", tx),
		Hash:        tx.CommitHash,
		Destructive: tx.Destructive,
		Refusal:     strings.Join(tx.DestructiveReasons, "; "),
		Resume:      gate.Resume{Tool: "workspace_edit", Arguments: map[string]any{"action": "commit", "transaction_id": tx.ID}},
		Review:      ws.Store.Rel(filepath.Join(txDir(ws, tx.ID), "changes.diff")),
	})
	if err != nil {
		return envelope.Envelope{}, err
	}
	if d.Staged != nil {
		return staged(ws, tx, d.Staged)
	}
	if d.Approval != "" {
		ops = nil // an approval covers exactly the previewed content
	}
	if err := write(ws, tx, ops); err != nil {
		return envelope.Envelope{}, err
	}
	if err := gate.Consume(ws, d.Approval); err != nil {
		return envelope.Envelope{}, err
	}
	return result(ws, tx, ""), nil
}

// replannable says a stale transaction may be planned again: apply gave
// its operations and none of them pins a file with expect_sha256 (a
// pinned file that changed must fail stale).
func replannable(ops []Op, stale error) bool {
	var e *envelope.Error
	if len(ops) == 0 || !errors.As(stale, &e) || e.Details["reason"] != "stale" {
		return false
	}
	for _, op := range ops {
		if op.ExpectSHA256 != "" {
			return false
		}
	}
	return true
}

// replan plans tx's operations again, under the store lock, against the
// files as they are now, so parallel applies that touch different parts
// of one file each land on top of the one before. It keeps the id. A plan
// that fails (its search text is gone) is the caller's error, and one that
// became destructive where the first was not stays stale: the gate judged
// the first.
func replan(ws *workspace.Workspace, tx *Transaction, ops []Op, stale error) error {
	p := newPlanner(ws)
	if err := p.apply(ops); err != nil {
		return err
	}
	if len(p.reasons) > 0 && !tx.Destructive {
		return stale
	}
	tx.Files, tx.Directories, tx.Replacements = p.changes(), p.dirs, p.replaced
	tx.emptyLists()
	tx.Note = "planned again at commit: its files changed after the preview"
	st, err := prepare(ws, tx, p)
	if err != nil {
		return err
	}
	return persist(ws, tx, st)
}

// staged is the pending-approval result, carrying the planned transaction
// of the record (which, for a re-issued call, is the first one staged).
func staged(ws *workspace.Workspace, tx *Transaction, st *gate.Staged) (envelope.Envelope, error) {
	if id, _ := st.Approval.Resume.Arguments["transaction_id"].(string); id != "" && id != tx.ID {
		if first, err := load(ws, id); err == nil {
			tx = first
		}
	}
	env := gate.StagedEnvelope(st, ws.Settings.PermissionMode)
	r := result(ws, tx, "").Data.(*Result)
	r.TransactionStatus, r.Status = r.Status, st.Status
	r.Mode, r.Approval = st.Mode, &st.Approval
	env.Data = r
	env.Artifacts = artifacts(ws, tx)
	env.Omit("data.diffPreview", "data.operations")
	return env, nil
}

// plan runs the operations on a virtual copy of the files and records a
// planned transaction, or returns the one an idempotency key names.
func plan(ws *workspace.Workspace, req *PreviewRequest) (*Transaction, bool, error) {
	// A key is looked up before the operations run: a retry of an apply
	// that already committed would otherwise fail against its own result
	// (a create finding its file, a replace its text gone) instead of
	// returning the transaction.
	if req.IdempotencyKey != "" {
		if tx, err := byKey(ws, req); tx != nil || err != nil {
			return tx, tx != nil, err
		}
	}
	p := newPlanner(ws)
	if err := p.apply(req.Operations); err != nil {
		return nil, false, err
	}
	files := p.changes()
	if len(files) == 0 && len(p.dirs) > 0 {
		var existing []string
		for _, d := range p.dirs {
			if d.ExistedBefore {
				existing = append(existing, d.Path)
			}
		}
		if len(existing) == len(p.dirs) {
			return nil, false, envelope.Errorf(envelope.InvalidInput,
				"every requested directory already exists (%s) and nothing else changes: there is nothing to do, and no need to re-issue the call", joinPaths(existing)).With("directories", existing)
		}
	}
	norm, err := normalize(ws, req.Operations)
	if err != nil {
		return nil, false, err
	}
	tx := &Transaction{
		ID: store.NewID("tx"), Status: Planned, Operations: norm, Files: files, Directories: p.dirs,
		Destructive: len(p.reasons) > 0, DestructiveReasons: p.reasons, Replacements: p.replaced, IdempotencyKey: req.IdempotencyKey,
		OpsHash: gate.Hash(norm), CreatedAt: time.Now().UTC(),
	}
	tx.emptyLists()
	befores := p.befores()
	type beforeHash struct{ Path, SHA256 string }
	var hashes []beforeHash
	for _, k := range sortedKeys(befores) {
		hashes = append(hashes, beforeHash{k, befores[k]})
	}
	tx.CommitHash = gate.Hash(struct {
		Action     string
		Operations []Op
		Before     []beforeHash
	}{"commit", norm, hashes})

	// Everything the transaction will store is built and measured before
	// anything is written: over edit.maxTransactionBytes, nothing is.
	st, err := prepare(ws, tx, p)
	if err != nil {
		return nil, false, err
	}
	if req.IdempotencyKey != "" {
		var existing *Transaction
		err := store.Update(ws.Store, keysPath(ws), func(keys *keyIndex) error {
			if *keys == nil {
				*keys = keyIndex{}
			}
			if e, ok := (*keys)[req.IdempotencyKey]; ok {
				if e.OpsHash != tx.OpsHash {
					return envelope.Errorf(envelope.EditConflict,
						"idempotency_key %q was used by %s with different operations; use a new key for a different edit", req.IdempotencyKey, e.TransactionID).With("transactionId", e.TransactionID).With("reason", "key-reused")
				}
				t, err := load(ws, e.TransactionID)
				if err == nil {
					existing = t
					return nil
				}
			}
			(*keys)[req.IdempotencyKey] = keyEntry{TransactionID: tx.ID, OpsHash: tx.OpsHash}
			return nil
		})
		if err != nil {
			return nil, false, err
		}
		if existing != nil {
			return existing, true, nil
		}
	}
	if err := persist(ws, tx, st); err != nil {
		return nil, false, err
	}
	return tx, false, nil
}

// byKey returns the transaction an idempotency key already names when the
// operations are the same, EDIT_CONFLICT when they differ, and nil when
// the key is new (or its operations cannot be normalized: the planner
// then reports why).
func byKey(ws *workspace.Workspace, req *PreviewRequest) (*Transaction, error) {
	norm, err := normalize(ws, req.Operations)
	if err != nil {
		return nil, nil
	}
	var keys keyIndex
	if _, err := ws.Store.ReadJSON(keysPath(ws), &keys); err != nil {
		return nil, err
	}
	e, ok := keys[req.IdempotencyKey]
	if !ok {
		return nil, nil
	}
	if e.OpsHash != gate.Hash(norm) {
		return nil, envelope.Errorf(envelope.EditConflict,
			"idempotency_key %q was used by %s with different operations; use a new key for a different edit", req.IdempotencyKey, e.TransactionID).With("transactionId", e.TransactionID).With("reason", "key-reused")
	}
	tx, err := load(ws, e.TransactionID)
	if err != nil {
		return nil, nil // lost: plan afresh and rebind the key
	}
	return tx, nil
}

// normalize rewrites every path to its root-relative form, so the same edit
// named two ways hashes the same.
func normalize(ws *workspace.Workspace, ops []Op) ([]Op, error) {
	out := make([]Op, len(ops))
	for i, op := range ops {
		for _, f := range []*string{&op.Path, &op.From, &op.To} {
			if *f == "" {
				continue
			}
			access := workspace.Write
			if f == &op.From && op.Type == "copy" {
				access = workspace.Read
			}
			jp, err := ws.Jail.Resolve(*f, access)
			if err != nil {
				return nil, err
			}
			*f = jp.Rel
		}
		out[i] = op
	}
	return out, nil
}

// side names which recorded state verify compares the workspace with.
type side int

const (
	before side = iota
	after
)

// verify checks every file still holds the recorded state and returns
// EDIT_CONFLICT naming the ones that do not.
func verify(ws *workspace.Workspace, tx *Transaction, s side) error {
	var stale []string
	for _, f := range tx.Files {
		jp, err := resolveChange(ws, &f)
		if err != nil {
			return err
		}
		if jp.Rel != f.Path {
			stale = append(stale, f.Path+" (now resolves to "+jp.Rel+")")
			continue
		}
		want, mode := f.BeforeSHA256, f.BeforeMode
		if s == after {
			want, mode = f.AfterSHA256, f.Mode
		}
		if !holds(jp.Abs, want, mode) {
			stale = append(stale, f.Path)
		}
	}
	for _, d := range tx.Directories {
		if fi, err := os.Lstat(filepath.Join(ws.Root, d.Path)); s == before && err == nil && !fi.IsDir() {
			stale = append(stale, d.Path+" (now a file)")
		}
	}
	if len(stale) == 0 {
		return nil
	}
	if s == before {
		return envelope.Errorf(envelope.EditConflict,
			"transaction %s is stale: %s changed on disk since the preview; preview the operations again", tx.ID, joinPaths(stale)).With("paths", stale).With("transactionId", tx.ID).With("reason", "stale")
	}
	return envelope.Errorf(envelope.EditConflict,
		"cannot roll back %s: %s changed since the commit; restore them first, or roll back with force: true (destructive: it overwrites those changes)", tx.ID, joinPaths(stale)).With("paths", stale).With("transactionId", tx.ID).With("reason", "changed-since-commit")
}

// write commits the files, all or nothing, under the store lock. The
// journal names the transaction while files are written, so a process
// killed half-way is undone by the next aw call (Recover).
func write(ws *workspace.Workspace, tx *Transaction, ops []Op) error {
	unlock, err := ws.Store.Lock()
	if err != nil {
		return err
	}
	defer unlock()
	// Another process may have committed it, or changed the files, since.
	fresh, err := load(ws, tx.ID)
	if err != nil {
		return err
	}
	*tx = *fresh
	if tx.Status != Planned {
		return envelope.Errorf(envelope.TransactionState, "transaction %s became %s while this call waited; `aw edit show %s` tells what happened", tx.ID, tx.Status, tx.ID).With("transactionId", tx.ID)
	}
	if err := verify(ws, tx, before); err != nil {
		if !replannable(ops, err) {
			return err
		}
		if err := replan(ws, tx, ops, err); err != nil {
			return err
		}
	}
	contents := make([][]byte, len(tx.Files))
	for n, f := range tx.Files {
		if f.AfterSHA256 != "" {
			if contents[n], err = readBlob(ws, tx, "after", n, f.AfterSHA256); err != nil {
				return err
			}
		}
	}
	tx.CreatedDirs = missingDirs(ws, tx)
	// The journal goes first: a status of committing is only ever on disk
	// with a journal beside it, so a kill at any point leaves either an
	// untouched planned transaction or one that Recover can undo.
	if err := writeJournal(ws, tx.ID); err != nil {
		return err
	}
	crashPoint("commit.journal")
	tx.Status = Committing
	if err := save(ws, tx); err != nil {
		return err
	}
	crashPoint("commit.committing")
	werr := writeFiles(ws, tx, contents)
	if werr != nil {
		rerr := restore(ws, tx, true)
		tx.Error = werr.Error()
		msg := "every file and directory it touched was restored"
		if rerr == nil {
			tx.Status = Failed
		} else {
			// Still committing, with its journal: the tree is neither
			// before nor after, and the next call's Recover retries.
			tx.Error += "; restoring also failed: " + rerr.Error()
			msg = "restoring failed too (" + rerr.Error() + "): run any aw command to retry the recovery"
		}
		if err := save(ws, tx); err != nil {
			return err
		}
		if rerr == nil {
			clearJournal(ws)
		}
		return envelope.Errorf(envelope.EditConflict, "commit of %s failed: %v; %s. Fix the cause and preview the operations again", tx.ID, werr, msg).With("transactionId", tx.ID).With("reason", "write-failed")
	}
	tx.Status, tx.CommittedAt = Applied, time.Now().UTC()
	if err := save(ws, tx); err != nil {
		return err
	}
	crashPoint("commit.applied")
	return clearJournal(ws)
}

// missingDirs lists, shallowest first, every directory the commit must
// create: missing parents of the files it writes and the mkdir targets.
func missingDirs(ws *workspace.Workspace, tx *Transaction) []string {
	seen := map[string]bool{}
	var out []string
	add := func(rel string) {
		var chain []string
		for d := rel; d != "." && d != "/" && !seen[d]; d = path.Dir(d) {
			if fi, err := os.Lstat(filepath.Join(ws.Root, d)); err == nil && fi.IsDir() {
				break
			}
			chain = append(chain, d)
			seen[d] = true
		}
		for i := len(chain) - 1; i >= 0; i-- {
			out = append(out, chain[i])
		}
	}
	for _, f := range tx.Files {
		if f.AfterSHA256 != "" {
			add(path.Dir(f.Path))
		}
	}
	for _, d := range tx.Directories {
		add(d.Path)
	}
	sort.SliceStable(out, func(i, j int) bool { return strings.Count(out[i], "/") < strings.Count(out[j], "/") })
	return out
}

func writeFiles(ws *workspace.Workspace, tx *Transaction, contents [][]byte) error {
	for _, d := range tx.CreatedDirs {
		if err := os.Mkdir(filepath.Join(ws.Root, d), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("cannot create directory %s: %w", d, err)
		}
	}
	dirs := map[string]bool{}
	for n, f := range tx.Files {
		abs := filepath.Join(ws.Root, filepath.FromSlash(f.Path))
		dirs[filepath.Dir(abs)] = true
		if f.AfterSHA256 == "" {
			if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("cannot delete %s: %w", f.Path, err)
			}
			continue
		}
		if err := place(abs, contents[n], f.Mode); err != nil {
			return fmt.Errorf("cannot write %s: %w", f.Path, err)
		}
		crashPointN("commit.file", n)
	}
	for _, d := range tx.CreatedDirs {
		dirs[filepath.Dir(filepath.Join(ws.Root, d))] = true
	}
	for _, d := range tx.RemoveDirs {
		if abs, ok := ownDir(ws, d); ok && os.Remove(abs) == nil { // fails, as it should, when not empty
			delete(dirs, abs)
			dirs[filepath.Dir(abs)] = true
		}
	}
	for d := range dirs {
		if err := store.SyncDir(d); err != nil {
			return err
		}
	}
	return nil
}

// ownDir is the directory rel when it still is one and resolves to itself
// inside the workspace (no symlink on its path leading elsewhere).
func ownDir(ws *workspace.Workspace, rel string) (string, bool) {
	abs := filepath.Join(ws.Root, filepath.FromSlash(rel))
	if jp, err := ws.Jail.Resolve(rel, workspace.Write); err != nil || jp.Abs != abs {
		return "", false
	}
	fi, err := os.Lstat(abs)
	return abs, err == nil && fi.IsDir()
}

// restore puts every file back to its before state; with created it also
// removes, deepest first and only while empty, the directories the commit
// created.
func restore(ws *workspace.Workspace, tx *Transaction, created bool) error {
	var errs []string
	dirs := map[string]bool{}
	// The directories the commit removed come back first, shallowest first.
	for i := len(tx.RemoveDirs) - 1; i >= 0; i-- {
		rel := tx.RemoveDirs[i]
		abs := filepath.Join(ws.Root, filepath.FromSlash(rel))
		if jp, err := ws.Jail.Resolve(rel, workspace.Write); err != nil || jp.Abs != abs {
			errs = append(errs, rel+": no longer resolves inside the workspace; left alone")
			continue
		}
		if err := os.Mkdir(abs, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			errs = append(errs, rel+": "+err.Error())
		}
		dirs[filepath.Dir(abs)] = true
	}
	for n, f := range tx.Files {
		abs := filepath.Join(ws.Root, filepath.FromSlash(f.Path))
		if jp, err := resolveChange(ws, &f); err != nil || jp.Abs != abs {
			errs = append(errs, f.Path+": no longer resolves inside the workspace; left alone")
			continue
		}
		dirs[filepath.Dir(abs)] = true
		// A process killed mid-write leaves its temp file beside the target.
		if stray, _ := filepath.Glob(filepath.Join(filepath.Dir(abs), "."+globEscape(filepath.Base(abs))+".aw-*")); len(stray) > 0 {
			for _, s := range stray {
				os.Remove(s)
			}
		}
		if !f.ExistedBefore {
			if _, present, _, _ := current(abs); present {
				if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
					errs = append(errs, f.Path+": "+err.Error())
				}
			}
			continue
		}
		if holds(abs, f.BeforeSHA256, f.BeforeMode) && permIs(abs, f.BeforeMode) {
			continue
		}
		content, err := readBlob(ws, tx, "before", n, f.BeforeSHA256)
		if err == nil {
			if err = os.MkdirAll(filepath.Dir(abs), 0o755); err == nil {
				err = place(abs, content, f.BeforeMode)
			}
		}
		if err != nil {
			errs = append(errs, f.Path+": "+err.Error())
		}
		crashPointN("restore.file", n)
	}
	if created {
		for i := len(tx.CreatedDirs) - 1; i >= 0; i-- {
			abs := filepath.Join(ws.Root, tx.CreatedDirs[i])
			if jp, err := ws.Jail.Resolve(tx.CreatedDirs[i], workspace.Write); err != nil || jp.Abs != abs {
				continue // a symlink on its path leads elsewhere: not ours
			}
			if fi, err := os.Lstat(abs); err == nil && fi.IsDir() {
				os.Remove(abs) // fails, as it should, when not empty
				dirs[filepath.Dir(abs)] = true
			}
		}
	}
	for d := range dirs {
		store.SyncDir(d)
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// Rollback restores a committed transaction (gated with its own hash, so
// approving a commit never authorises undoing it; force is destructive).
func Rollback(ctx context.Context, ws *workspace.Workspace, req *RollbackRequest) (envelope.Envelope, error) {
	tx, err := load(ws, req.TransactionID)
	if err != nil {
		return envelope.Envelope{}, err
	}
	switch tx.Status {
	case RolledBack:
		env := result(ws, tx, fmt.Sprintf("Transaction %s is already rolled back: nothing to do (a no-op, never staged).", tx.ID))
		env.Data.(*Result).NoOp = true
		return env, nil
	case Applied:
	default:
		return envelope.Envelope{}, envelope.Errorf(envelope.TransactionState,
			"transaction %s is %s: only an applied transaction can be rolled back", tx.ID, tx.Status).With("transactionId", tx.ID)
	}
	if !req.Force {
		if err := verify(ws, tx, after); err != nil {
			return envelope.Envelope{}, err
		}
	} else if err := inJail(ws, tx); err != nil {
		return envelope.Envelope{}, err
	}
	now := map[string]string{}
	for _, f := range tx.Files {
		h, _, _, _ := current(filepath.Join(ws.Root, filepath.FromSlash(f.Path)))
		now[f.Path] = h
	}
	args := map[string]any{"action": "rollback", "transaction_id": tx.ID}
	if req.Force {
		args["force"] = true
	}
	d, err := gate.Check(ws, gate.Operation{
		Kind:  "transaction",
		Title: title("Roll back", tx),
		Hash: gate.Hash(struct {
			Action, ID string
			Force      bool
			Files      map[string]string
		}{"rollback", tx.ID, req.Force, now}),
		Destructive: req.Force,
		Refusal:     "a forced rollback overwrites whatever changed in its files since the commit (without force, rollback refuses when a file changed)",
		Resume:      gate.Resume{Tool: "workspace_edit", Arguments: args},
		Review:      ws.Store.Rel(filepath.Join(txDir(ws, tx.ID), "changes.diff")),
	})
	if err != nil {
		return envelope.Envelope{}, err
	}
	if d.Staged != nil {
		return staged(ws, tx, d.Staged)
	}
	left, err := unwrite(ws, tx, req.Force)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if err := gate.Consume(ws, d.Approval); err != nil {
		return envelope.Envelope{}, err
	}
	env := result(ws, tx, "")
	env.Data.(*Result).LeftDirectories = left
	if len(left) > 0 {
		env.Summary += fmt.Sprintf(" Left in place (not an empty directory this transaction created any more): %s.", strings.Join(left, ", "))
	}
	return env, nil
}

// inJail refuses a forced rollback when a file's path no longer resolves
// to itself inside the workspace (a symlink swapped in on its path): the
// restore could never finish, and a journal left behind would fail every
// later aw call in recovery.
func inJail(ws *workspace.Workspace, tx *Transaction) error {
	var bad []string
	for _, f := range tx.Files {
		jp, err := resolveChange(ws, &f)
		if err != nil || jp.Rel != f.Path {
			bad = append(bad, f.Path)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return envelope.Errorf(envelope.PathEscape,
		"cannot roll back %s: %s no longer resolves to itself inside the workspace (a symlink on the path leads elsewhere); put the directories back, then roll back again", tx.ID, joinPaths(bad)).With("paths", bad).With("transactionId", tx.ID)
}

// unwrite is the rollback itself, under the store lock and the journal.
func unwrite(ws *workspace.Workspace, tx *Transaction, force bool) ([]string, error) {
	unlock, err := ws.Store.Lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	fresh, err := load(ws, tx.ID)
	if err != nil {
		return nil, err
	}
	*tx = *fresh
	if tx.Status != Applied {
		return nil, envelope.Errorf(envelope.TransactionState, "transaction %s became %s while this call waited", tx.ID, tx.Status).With("transactionId", tx.ID)
	}
	if !force {
		if err := verify(ws, tx, after); err != nil {
			return nil, err
		}
	} else if err := inJail(ws, tx); err != nil {
		return nil, err
	}
	// Journal first, as in write: rolling-back is never on disk alone.
	if err := writeJournal(ws, tx.ID); err != nil {
		return nil, err
	}
	crashPoint("rollback.journal")
	tx.Status = RollingBack
	if err := save(ws, tx); err != nil {
		return nil, err
	}
	crashPoint("rollback.rollingback")
	if err := restore(ws, tx, false); err != nil {
		return nil, envelope.Errorf(envelope.Internal, "rollback of %s is incomplete: %v; run any aw command to retry", tx.ID, err)
	}
	left := removeMkdirs(ws, tx)
	tx.Status, tx.RolledBackAt = RolledBack, time.Now().UTC()
	if err := save(ws, tx); err != nil {
		return nil, err
	}
	crashPoint("rollback.rolledback")
	return left, clearJournal(ws)
}

// removeMkdirs removes the directories the commit created (mkdir targets
// and the missing parents of the files it wrote), deepest first, only while
// each is still an empty directory; it names the mkdir targets it left (a
// parent made on the way that is no longer empty is kept without comment).
func removeMkdirs(ws *workspace.Workspace, tx *Transaction) []string {
	asked := map[string]bool{} // mkdir targets
	var dirs []string
	for _, d := range tx.Directories {
		if !d.ExistedBefore && !asked[d.Path] {
			asked[d.Path] = true
			dirs = append(dirs, d.Path)
		}
	}
	for _, d := range tx.CreatedDirs {
		if !asked[d] {
			dirs = append(dirs, d)
		}
	}
	sort.SliceStable(dirs, func(i, j int) bool { return strings.Count(dirs[i], "/") > strings.Count(dirs[j], "/") })
	var left []string
	keep := func(d string) {
		if asked[d] {
			left = append(left, d)
		}
	}
	for _, d := range dirs {
		abs := filepath.Join(ws.Root, d)
		if jp, err := ws.Jail.Resolve(d, workspace.Write); err != nil || jp.Abs != abs {
			keep(d) // a symlink on its path leads elsewhere
			continue
		}
		fi, err := os.Lstat(abs)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil || !fi.IsDir() || os.Remove(abs) != nil {
			keep(d)
			continue
		}
		store.SyncDir(filepath.Dir(abs))
	}
	return left
}

// Recover finishes what a killed commit or rollback left: both end with
// every file back in its before state. It runs before every action.
func Recover(ws *workspace.Workspace) error {
	if _, err := os.Lstat(journalPath(ws)); err != nil {
		return nil
	}
	unlock, err := ws.Store.Lock()
	if err != nil {
		return err
	}
	defer unlock()
	raw, err := os.ReadFile(journalPath(ws))
	if err != nil {
		return nil // another process recovered it while we waited
	}
	tx, err := load(ws, strings.TrimSpace(string(raw)))
	if err != nil {
		return clearJournal(ws)
	}
	switch tx.Status {
	case Committing:
		if err := restore(ws, tx, true); err != nil {
			return envelope.Errorf(envelope.Internal, "recovering interrupted commit %s: %v", tx.ID, err)
		}
		tx.Status, tx.Error = Failed, "the commit was interrupted; every file was restored to its state before the commit"
	case RollingBack:
		if err := restore(ws, tx, false); err != nil {
			return envelope.Errorf(envelope.Internal, "recovering interrupted rollback %s: %v", tx.ID, err)
		}
		removeMkdirs(ws, tx)
		tx.Status, tx.RolledBackAt = RolledBack, time.Now().UTC()
		tx.Note = "the rollback was interrupted and completed by recovery"
	default:
		return clearJournal(ws)
	}
	if err := save(ws, tx); err != nil {
		return err
	}
	return clearJournal(ws)
}

// globEscape quotes glob metacharacters in a file name.
func globEscape(name string) string {
	var b strings.Builder
	for _, r := range name {
		if strings.ContainsRune(`*?[\\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// emptyLists makes the lists a transaction reports [] rather than null.
func (tx *Transaction) emptyLists() {
	if tx.Files == nil {
		tx.Files = []FileChange{}
	}
	if tx.Directories == nil {
		tx.Directories = []DirChange{}
	}
	if tx.DestructiveReasons == nil {
		tx.DestructiveReasons = []string{}
	}
}
