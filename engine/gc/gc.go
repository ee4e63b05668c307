// Package gc prunes .agentic/: transactions, artifacts, job directories
// (record and logs), browser profiles and settled sub-agent runs (state
// and transcript) past store.retentionDays, and the
// oldest of them while the store is over store.maxBytes. It never removes
// what something still needs:
//
//   - an entry a pending or approved approval names (its resume call or
//     what the human is shown: a transaction to commit, a diff to review);
//   - a running job (its supervisor or its process is alive), a live
//     browser session, a transaction being committed or rolled back;
//   - the newest KeepNewest transactions and jobs, which the recovery
//     listing (`aw inspect changes`) is read for after a compaction;
//   - anything changed in the last MinAge, which a call may be writing.
//
// `aw gc` also ends the processes whose records are stale: the trees of
// jobs whose supervisor is gone, Chromium processes of this workspace
// that no session record names, and run supervisors still alive after
// their run settled or after a cancel they did not obey.
//
// Notes, MEMORY.md, task boards, plans, research projects, approval records
// and settings are never pruned: they are small, and they are what the
// human and the next agent read. `aw gc` (Run) is a human verb that prunes
// everything due now and reports it; Auto is the light pruning every call
// that may write does at most once an hour, removing at most AutoLimit
// entries under the store lock. A call capped at --tier read never prunes.
package gc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/agent"
	"github.com/agentic-workspace/aw/engine/broker"
	"github.com/agentic-workspace/aw/engine/browser"
	"github.com/agentic-workspace/aw/engine/command"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/proc"
	"github.com/agentic-workspace/aw/engine/snapshot"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

const (
	// KeepNewest transactions and jobs are kept whatever their age.
	KeepNewest = 10
	// MinAge protects what a call may still be writing.
	MinAge = 10 * time.Minute
	// AutoEvery is how often Auto runs per workspace (the stamp's age).
	AutoEvery = time.Hour
	// AutoLimit bounds the entries one Auto run removes.
	AutoLimit = 50
	// listed bounds the removed and protected entries an envelope lists.
	listed = 50
)

// Kinds of prunable entries, in report order.
var Kinds = []string{"transactions", "artifacts", "jobs", "browser", "agents"}

// Request is `aw gc`: dry_run reports what would go without removing it.
type Request struct {
	DryRun bool `json:"dry_run,omitempty" doc:"report what would be pruned without removing anything; default false"`
}

// entry is one prunable thing: a directory (or file) and its companions.
type entry struct {
	kind      string
	id        string   // tx_…, job_…, session_…, artifact_… ("" when the name has none)
	paths     []string // absolute; the first is the entry itself
	bytes     int64
	modified  time.Time
	protected string // why it is kept whatever its age, "" when prunable
}

// Removed is one pruned (or, in a dry run, prunable) entry.
type Removed struct {
	Kind   string `json:"kind"`
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	Reason string `json:"reason"` // age or size
}

// Protected is one entry kept whatever its age, and why.
type Protected struct {
	Kind string `json:"kind"`
	Path string `json:"path"`
	Why  string `json:"why"`
}

// KindTotals counts one kind.
type KindTotals struct {
	Kind           string `json:"kind"`
	Removed        int    `json:"removed"`
	BytesFreed     int64  `json:"bytesFreed"`
	Kept           int    `json:"kept"`
	Protected      int    `json:"protected"`
	BytesRemaining int64  `json:"bytesRemaining"`
}

// Result is the data of store.gc.
type Result struct {
	DryRun             bool         `json:"dryRun"`
	RetentionDays      int          `json:"retentionDays"`
	MaxBytes           int          `json:"maxBytes"`
	StoreBytesBefore   int64        `json:"storeBytesBefore"`
	StoreBytesAfter    int64        `json:"storeBytesAfter"`
	BytesFreed         int64        `json:"bytesFreed"`
	OverCap            bool         `json:"overCap"`
	Kinds              []KindTotals `json:"kinds"`
	Removed            []Removed    `json:"removed"`
	RemovedTruncated   bool         `json:"removedTruncated,omitempty"`
	Protected          []Protected  `json:"protected"`
	ProtectedTruncated bool         `json:"protectedTruncated,omitempty"`
	Limited            bool         `json:"limited,omitempty"` // Auto stopped at AutoLimit
	// Snapshots are the blobs of command snapshots nothing names any more.
	Snapshots *snapshot.Pruned `json:"snapshots,omitempty"`
	// Ended are the processes whose records were stale (a job whose
	// supervisor is gone, a Chromium no session record names): `aw gc`
	// ends them (a dry run lists them).
	Ended []proc.Owned `json:"ended,omitempty"`
}

// Run is `aw gc`, a human verb: prune what is due now and report it.
func Run(ctx context.Context, ws *workspace.Workspace, req *Request) (envelope.Envelope, error) {
	if err := gate.RequireHuman(ws, "`aw gc`"); err != nil {
		return envelope.Envelope{}, err
	}
	res := &Result{DryRun: req.DryRun, Removed: []Removed{}, Protected: []Protected{}}
	if _, err := os.Stat(ws.Store.Dir); errors.Is(err, fs.ErrNotExist) {
		res.fill(ws, nil, nil)
		return report(res), nil
	}
	// On a terminal the human sees what would go and confirms first; the
	// question is asked without the store lock, so agents are not held up
	// while it waits, and the pruning that follows reports what it did.
	if !req.DryRun && ws.Caller.Terminal && ws.Caller.Confirm != nil {
		preview := &Result{DryRun: true, Removed: []Removed{}, Protected: []Protected{}}
		if err := locked(ws, func() error { return prune(ws, preview, 0) }); err != nil {
			return envelope.Envelope{}, err
		}
		if preview.BytesFreed > 0 && !ws.Caller.Confirm(report(preview).Summary+"\nRemove them? [y/N] ") {
			env := report(preview)
			env.Summary = "Nothing removed (not confirmed). " + env.Summary
			return env, nil
		}
	}
	// Stale processes first: a Chromium ended now leaves a profile the
	// pruning then removes.
	res.Ended = append(command.EndStale(ws, req.DryRun), browser.EndStale(ws, req.DryRun)...)
	res.Ended = append(res.Ended, agent.EndStale(ws, req.DryRun)...)
	res.Ended = append(res.Ended, broker.EndStale(ws, req.DryRun)...)
	err := locked(ws, func() error { return prune(ws, res, 0) })
	if err != nil {
		return envelope.Envelope{}, err
	}
	if !req.DryRun {
		writeStamp(ws, res, false, nil)
	}
	return report(res), nil
}

// locked runs fn under the store lock.
func locked(ws *workspace.Workspace, fn func() error) error {
	unlock, err := ws.Store.Lock()
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}

// Auto is the light pruning of every call that may write: at most once per
// AutoEvery per workspace (the stamp file .agentic/gc.json), at most
// AutoLimit entries. It never creates .agentic/ and never fails the call:
// an error is recorded in the stamp.
func Auto(ws *workspace.Workspace) {
	if !ws.Allows(workspace.TierWrite) {
		return // a call capped at --tier read changes nothing
	}
	if fresh(ws) {
		return
	}
	if _, err := os.Stat(ws.Store.Dir); err != nil {
		return
	}
	unlock, err := ws.Store.Lock()
	if err != nil {
		return
	}
	defer unlock()
	if fresh(ws) { // another process ran it while this one waited
		return
	}
	res := &Result{Removed: []Removed{}, Protected: []Protected{}}
	err = prune(ws, res, AutoLimit)
	writeStamp(ws, res, true, err)
}

func stampPath(ws *workspace.Workspace) string { return ws.Store.Path("gc.json") }

func fresh(ws *workspace.Workspace) bool {
	fi, err := os.Stat(stampPath(ws))
	return err == nil && time.Since(fi.ModTime()) < AutoEvery
}

// stamp is .agentic/gc.json: when pruning last ran and what it freed.
type stamp struct {
	RanAt      time.Time    `json:"ranAt"`
	Auto       bool         `json:"auto"`
	BytesFreed int64        `json:"bytesFreed"`
	Kinds      []KindTotals `json:"kinds"`
	Error      string       `json:"error,omitempty"`
}

func writeStamp(ws *workspace.Workspace, res *Result, auto bool, err error) {
	s := stamp{RanAt: time.Now().UTC(), Auto: auto, BytesFreed: res.BytesFreed, Kinds: res.Kinds}
	if err != nil {
		s.Error = err.Error()
	}
	ws.Store.WriteJSON(stampPath(ws), &s)
}

// prune removes, oldest first, every unprotected entry past the retention
// age, then more while the store is over store.maxBytes. limit > 0 bounds
// the entries removed. The caller holds the store lock.
func prune(ws *workspace.Workspace, res *Result, limit int) error {
	entries, total, err := collect(ws)
	if err != nil {
		return err
	}
	if err := protect(ws, entries); err != nil {
		return err
	}
	res.StoreBytesBefore = total
	cutoff := time.Now().AddDate(0, 0, -ws.Settings.Store.RetentionDays)
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].modified.Before(entries[j].modified) })
	var removed []*entry
	for _, e := range entries {
		if e.protected != "" {
			continue
		}
		reason := ""
		switch {
		case e.modified.Before(cutoff):
			reason = "age"
		case total > int64(ws.Settings.Store.MaxBytes):
			reason = "size"
		default:
			continue
		}
		// Reading a record is left to the entries that would go, so a
		// pass over a store with nothing due reads none.
		if e.protected = needed(ws, e); e.protected != "" {
			continue
		}
		if limit > 0 && len(removed) == limit {
			res.Limited = true
			break
		}
		if !res.DryRun {
			if err := remove(e); err != nil {
				return envelope.Errorf(envelope.Internal, "cannot remove %s: %v; check permissions under .agentic/", ws.Store.Rel(e.paths[0]), err)
			}
		}
		total -= e.bytes
		removed = append(removed, e)
		if len(res.Removed) < listed {
			res.Removed = append(res.Removed, Removed{Kind: e.kind, Path: ws.Store.Rel(e.paths[0]), Bytes: e.bytes, Reason: reason})
		} else {
			res.RemovedTruncated = true
		}
	}
	res.StoreBytesAfter = total
	res.fill(ws, entries, removed)
	// Blobs last: the jobs just removed took the records naming them.
	if p, err := snapshot.Open(ws).Prune(ws, res.DryRun); err == nil && p.Blobs > 0 {
		res.Snapshots = &p
		res.BytesFreed += p.Bytes
	}
	return nil
}

// fill sums the kinds and lists the protected entries.
func (res *Result) fill(ws *workspace.Workspace, entries, removed []*entry) {
	res.RetentionDays, res.MaxBytes = ws.Settings.Store.RetentionDays, ws.Settings.Store.MaxBytes
	gone := map[*entry]bool{}
	for _, e := range removed {
		gone[e] = true
	}
	totals := map[string]*KindTotals{}
	for _, k := range Kinds {
		totals[k] = &KindTotals{Kind: k}
	}
	for _, e := range entries {
		t := totals[e.kind]
		switch {
		case gone[e]:
			t.Removed++
			t.BytesFreed += e.bytes
			res.BytesFreed += e.bytes
		default:
			t.Kept++
			t.BytesRemaining += e.bytes
		}
		if e.protected != "" {
			t.Protected++
			if len(res.Protected) < listed {
				res.Protected = append(res.Protected, Protected{Kind: e.kind, Path: ws.Store.Rel(e.paths[0]), Why: e.protected})
			} else {
				res.ProtectedTruncated = true
			}
		}
	}
	res.Kinds = nil
	for _, k := range Kinds {
		res.Kinds = append(res.Kinds, *totals[k])
	}
	res.OverCap = res.StoreBytesAfter > int64(res.MaxBytes)
}

// remove renames an entry's directory out of every listing first (ids are
// listed only in their own shape), so no reader sees half of it, then
// deletes it and its companions.
func remove(e *entry) error {
	first := e.paths[0]
	trash := filepath.Join(filepath.Dir(first), ".gc-"+filepath.Base(first))
	if err := os.Rename(first, trash); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed by another process
		}
		return err
	}
	if err := os.RemoveAll(trash); err != nil {
		return err
	}
	for _, p := range e.paths[1:] {
		if err := os.RemoveAll(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return store.SyncDir(filepath.Dir(first))
}

// collect lists the prunable entries of each kind and measures them and
// the whole store in one walk of .agentic/: an entry's bytes are the files
// under it, its last change the newest of itself and its direct children
// (a job's log grows without touching its directory).
func collect(ws *workspace.Workspace) ([]*entry, int64, error) {
	var out []*entry
	owner := map[string]*entry{} // "kind/name" of an entry or a companion
	for _, k := range Kinds {
		dir := ws.Store.Path(k)
		ents, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, 0, envelope.Errorf(envelope.Internal, "cannot list %s: %v", ws.Store.Rel(dir), err)
		}
		for _, d := range ents {
			name := d.Name()
			e := &entry{kind: k, paths: []string{filepath.Join(dir, name)}}
			switch k {
			case "transactions":
				if !d.IsDir() || !store.ValidID(name, "tx") {
					continue // journal, keys.json, a removal in progress
				}
				e.id = name
			case "jobs":
				if !d.IsDir() || !store.ValidID(name, "job") {
					continue
				}
				e.id = name
			case "agents":
				if !d.IsDir() || !store.ValidID(name, "run") {
					continue // keys.json, a removal in progress
				}
				e.id = name
			case "artifacts":
				if strings.HasPrefix(name, ".") {
					continue // a write in progress
				}
				if id, _, ok := strings.Cut(name, "-"); ok && store.ValidID(id, "artifact") {
					e.id = id
				}
			case "browser":
				// A session is <id>/ (profile, log), <id>.json and .<id>.lock;
				// a record without its directory is left to the browser.
				if !d.IsDir() || !store.ValidID(name, "session") {
					continue
				}
				e.id = name
				for _, c := range []string{name + ".json", "." + name + ".lock"} {
					e.paths = append(e.paths, filepath.Join(dir, c))
					owner[k+"/"+c] = e
				}
			}
			owner[k+"/"+name] = e
			out = append(out, e)
		}
	}
	var total int64
	err := filepath.WalkDir(ws.Store.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while walking
			}
			return err
		}
		rel, _ := filepath.Rel(ws.Store.Dir, p)
		parts := strings.SplitN(filepath.ToSlash(rel), "/", 4)
		var e *entry
		if len(parts) >= 2 {
			e = owner[parts[0]+"/"+parts[1]]
		}
		if !d.Type().IsRegular() && (e == nil || len(parts) > 3) {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil // removed while walking
		}
		if d.Type().IsRegular() {
			total += fi.Size()
			if e != nil {
				e.bytes += fi.Size()
			}
		}
		if e != nil && len(parts) <= 3 && fi.ModTime().After(e.modified) {
			e.modified = fi.ModTime()
		}
		return nil
	})
	if err != nil {
		return nil, 0, envelope.Errorf(envelope.Internal, "cannot measure .agentic/: %v", err)
	}
	return out, total, nil
}

// protect marks what must stay whatever its age and can be known without
// reading each entry's record: what an approval or the journal names, what
// changed lately, the newest of the recovery listing.
func protect(ws *workspace.Workspace, entries []*entry) error {
	keep := map[string]string{} // id -> why
	st, err := gate.Load(ws, gate.Clock())
	if err != nil {
		return err
	}
	for _, r := range st.Records {
		if r.Status != gate.Pending && r.Status != gate.Approved {
			continue
		}
		raw, _ := json.Marshal(struct {
			Review string
			Resume *gate.Resume
		}{r.Review, r.Resume})
		for _, id := range idsIn(string(raw)) {
			keep[id] = fmt.Sprintf("named by %s approval %s", r.Status, r.ID)
		}
	}
	if raw, err := os.ReadFile(ws.Store.Path("transactions", "journal")); err == nil {
		keep[strings.TrimSpace(string(raw))] = "a commit or rollback in progress (its journal names it)"
	}
	newest := map[string][]*entry{}
	for _, e := range entries {
		switch why, ok := keep[e.id]; {
		case ok && e.id != "":
			e.protected = why
		case time.Since(e.modified) < MinAge:
			e.protected = fmt.Sprintf("changed in the last %s", MinAge)
		case e.kind == "transactions" || e.kind == "jobs" || e.kind == "agents":
			newest[e.kind] = append(newest[e.kind], e)
		}
	}
	for _, list := range newest {
		sort.Slice(list, func(i, j int) bool { return list[i].id > list[j].id })
		for i, e := range list {
			if i == KeepNewest {
				break
			}
			e.protected = fmt.Sprintf("among the newest %d of the recovery listing", KeepNewest)
		}
	}
	return nil
}

// needed reads an entry's record and says why it must stay: a transaction
// being committed or rolled back, a running job, a live browser session.
func needed(ws *workspace.Workspace, e *entry) string {
	switch e.kind {
	case "transactions":
		var tx struct{ Status string }
		ws.Store.ReadJSON(filepath.Join(e.paths[0], "transaction.json"), &tx)
		if tx.Status == "committing" || tx.Status == "rolling_back" {
			return "status " + tx.Status + ": recovery needs it"
		}
	case "jobs":
		var j jobRecord
		ws.Store.ReadJSON(filepath.Join(e.paths[0], "job.json"), &j)
		if j.running() {
			return "a running job"
		}
	case "agents":
		var r struct {
			Status   string `json:"status"`
			PID      int    `json:"pid"`
			PIDStart uint64 `json:"pidStart"`
		}
		ws.Store.ReadJSON(filepath.Join(e.paths[0], "state.json"), &r)
		if r.Status == "running" && proc.Alive(r.PID, r.PIDStart) {
			return "a running sub-agent run"
		}
	case "browser":
		var s struct {
			Pid          int    `json:"pid"`
			ProcessStart uint64 `json:"processStart"`
		}
		ws.Store.ReadJSON(e.paths[1], &s)
		if proc.Alive(s.Pid, s.ProcessStart) {
			return "a live browser session"
		}
	}
	return ""
}

// jobRecord is what pruning reads of .agentic/jobs/<id>/job.json.
type jobRecord struct {
	Status          string `json:"status"`
	Pid             int    `json:"pid"`
	ProcessStart    uint64 `json:"processStart"`
	SupervisorPid   int    `json:"supervisorPid"`
	SupervisorStart uint64 `json:"supervisorStart"`
	LauncherPid     int    `json:"launcherPid"`
	LauncherStart   uint64 `json:"launcherStart"`
}

// running: the record says the job may run and its process, supervisor or
// launcher is alive. A live record whose processes are all gone is an
// orphan, pruned like a finished job.
func (j *jobRecord) running() bool {
	if j.Status != "starting" && j.Status != "running" {
		return false
	}
	return proc.Alive(j.Pid, j.ProcessStart) || proc.Alive(j.SupervisorPid, j.SupervisorStart) || proc.Alive(j.LauncherPid, j.LauncherStart)
}

// idsIn finds the store ids (tx_, job_, session_, artifact_) in s.
func idsIn(s string) []string {
	var out []string
	for _, prefix := range []string{"tx_", "job_", "session_", "artifact_"} {
		for rest := s; ; {
			i := strings.Index(rest, prefix)
			if i < 0 {
				break
			}
			cand := rest[i:]
			boundary := i == 0 || !isWordByte(rest[i-1])
			if boundary && len(cand) >= len(prefix)+23 && store.ValidID(cand[:len(prefix)+23], strings.TrimSuffix(prefix, "_")) {
				out = append(out, cand[:len(prefix)+23])
			}
			rest = rest[i+len(prefix):]
		}
	}
	return out
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// report is the envelope of store.gc.
func report(res *Result) envelope.Envelope {
	var parts []string
	for _, k := range res.Kinds {
		parts = append(parts, fmt.Sprintf("%d %s (%s)", k.Removed, label(k.Kind, k.Removed), store.HumanBytes(k.BytesFreed)))
	}
	if p := res.Snapshots; p != nil {
		parts = append(parts, fmt.Sprintf("%d snapshot blobs (%s)", p.Blobs, store.HumanBytes(p.Bytes)))
	}
	verb := "Freed"
	if res.DryRun {
		verb = "Dry run: would free"
	}
	protected := 0
	for _, k := range res.Kinds {
		protected += k.Protected
	}
	summary := fmt.Sprintf("%s %s: %s; %d kept as still needed. .agentic/ is %s (store.maxBytes %s, store.retentionDays %d).",
		verb, store.HumanBytes(res.BytesFreed), strings.Join(parts, ", "), protected, store.HumanBytes(res.StoreBytesAfter), store.HumanBytes(int64(res.MaxBytes)), res.RetentionDays)
	if n := len(res.Ended); n > 0 {
		what := "Ended"
		if res.DryRun {
			what = "Would end"
		}
		summary += fmt.Sprintf(" %s %d process(es) whose records were stale (data.ended).", what, n)
	}
	if res.OverCap {
		summary += " It is still over store.maxBytes: what remains is protected, recent, or not prunable (notes, boards, research, plans); a human can raise store.maxBytes or remove what is no longer needed."
	}
	env := envelope.New("", summary, res)
	env.Retention.Importance = envelope.Low
	env.Omit("data.removed", "data.protected")
	env.Fact("gc freed %d bytes; .agentic/ is %d bytes", res.BytesFreed, res.StoreBytesAfter)
	return env
}

func label(kind string, n int) string {
	singular := map[string]string{"transactions": "transaction", "artifacts": "artifact", "jobs": "job", "browser": "browser profile"}[kind]
	if kind == "browser" {
		kind = "browser profiles"
	}
	if n == 1 {
		return singular
	}
	return kind
}
