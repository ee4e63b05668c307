package snapshot

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/agentic-workspace/aw/engine/workspace"
)

// Record is a job's changes.json: every path it changed, with the state
// before and after, and what undo needs to put each back.
type Record struct {
	Job     string           `json:"job"`
	Before  time.Time        `json:"before"`
	After   time.Time        `json:"after"`
	Changes []RecordedChange `json:"changes"`
	// Attributed are paths changed during the job by aw's own edit
	// transactions: theirs to roll back, not the job's.
	Attributed []string `json:"attributed,omitempty"`
}

// RecordedChange is one path of a Record.
type RecordedChange struct {
	Path   string `json:"path"`
	Change string `json:"change"` // created, modified, deleted
	Before *State `json:"before,omitempty"`
	After  *State `json:"after,omitempty"`
}

// State is a path's recorded state.
type State struct {
	Type   string `json:"type"` // file, symlink, directory, fifo, socket, device
	Mode   uint32 `json:"mode"` // permission bits
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256,omitempty"`
	Link   string `json:"link,omitempty"`
	Kept   bool   `json:"kept"` // its content is in the snapshot store
}

func stateOf(e *Entry) *State {
	if e == nil {
		return nil
	}
	st := &State{Type: TypeOf(e.Mode), Mode: uint32(e.Mode.Perm()), Size: e.Size, Kept: e.Kept, Link: e.Link}
	if st.Type == "file" {
		st.SHA256 = e.Hex()
	}
	if st.Type == "directory" {
		st.Mode, st.Size = 0, 0 // recorded by presence only
	}
	return st
}

// TypeOf names a path's kind as a State records it.
func TypeOf(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "file"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "fifo"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// Special says a State is a fifo, socket or device: recorded, never
// restored.
func (st *State) Special() bool {
	return st != nil && st.Type != "file" && st.Type != "symlink" && st.Type != "directory"
}

// Summary is a job's data.changes: counts, the first paths, and where the
// whole record is.
type Summary struct {
	Recorded  bool         `json:"recorded"`
	Reason    string       `json:"reason,omitempty"`
	Created   int          `json:"created"`
	Modified  int          `json:"modified"`
	Deleted   int          `json:"deleted"`
	Paths     []PathChange `json:"paths"`
	Truncated bool         `json:"truncated"`
	// Unrestorable counts changes undo cannot put back: content over the
	// caps, or a special file (fifo, socket, device) made or removed.
	Unrestorable int    `json:"unrestorable,omitempty"`
	Record       string `json:"record,omitempty"`
}

// PathChange is one line of a Summary.
type PathChange struct {
	Path   string `json:"path"`
	Change string `json:"change"`
}

// summaryPaths is how many paths a summary names.
const summaryPaths = 20

// Total is how many paths changed.
func (s *Summary) Total() int { return s.Created + s.Modified + s.Deleted }

// Session is one job's snapshot: the scan before it, waiting for End.
type Session struct {
	ws     *workspace.Workspace
	store  *Store
	watch  *watcher // the tree's directories, watched through the job
	before *Manifest
	limits Limits
	reason string // why nothing is recorded
}

// LimitsOf are the workspace's snapshot caps.
func LimitsOf(ws *workspace.Workspace) Limits {
	c := ws.Settings.Commands
	return Limits{MaxFiles: c.SnapshotMaxFiles, MaxBytes: c.SnapshotMaxBytes, MaxFileBytes: c.SnapshotMaxFileBytes}
}

// Preloaded is the saved manifest, read in the background.
type Preloaded struct {
	done chan struct{}
	m    *Manifest
}

// Preload starts reading the saved manifest, so that it is decoded by the
// time Begin needs it: the caller checks and gates the job meanwhile, and
// a large tree's manifest takes as long to decode as that.
func Preload(ws *workspace.Workspace) *Preloaded {
	p := &Preloaded{done: make(chan struct{})}
	if ws.Settings.Commands.Snapshot == "off" {
		close(p.done)
		return p
	}
	go func() {
		defer close(p.done)
		p.m = Open(ws).Latest()
	}()
	return p
}

// Begin scans the tree before a job, from pre when the caller preloaded
// the manifest (nil: read now). It never fails the job: a tree it cannot
// record gives a session whose End says why.
func Begin(ctx context.Context, ws *workspace.Workspace, pre *Preloaded) *Session {
	s := &Session{ws: ws, store: Open(ws), limits: LimitsOf(ws)}
	if ws.Settings.Commands.Snapshot == "off" {
		s.reason = "commands.snapshot is off"
		return s
	}
	if Walk == nil {
		s.reason = "this build cannot walk the tree"
		return s
	}
	var prev *Manifest
	if pre != nil {
		<-pre.done
		prev = pre.m
	} else {
		prev = s.store.Latest()
	}
	s.watch = newWatcher()
	m, err := s.store.scan(ctx, ws, prev, s.limits, s.watch)
	if err != nil {
		s.reason = s.why(err)
		s.closeWatch()
		return s
	}
	s.before = m
	if stale(prev, m) {
		s.store.Save(m)
	}
	return s
}

// stale says the saved manifest prev no longer describes m: a path
// appeared, went or changed its stat (even with the same content: the next
// scan would hash it again), or an entry prev could not trust (racy,
// unkept) may now be trusted. An unchanged tree writes nothing.
func stale(prev, m *Manifest) bool {
	return prev == nil || m.hashed > 0 || len(prev.Entries) != len(m.Entries) || prev.Racy > 0 || prev.Unkept != m.Unkept
}

func (s *Session) why(err error) string {
	if errors.Is(err, ErrTooMany) {
		return fmt.Sprintf("the workspace has more than %d files (commands.snapshotMaxFiles): not snapshotted", s.limits.MaxFiles)
	}
	return "the workspace could not be snapshotted: " + err.Error()
}

// End scans the tree after the job, writes its record to recordPath and
// returns its summary; rel is recordPath as the envelope shows it.
func (s *Session) End(ctx context.Context, job, recordPath, rel string) *Summary {
	if s.before == nil {
		return &Summary{Reason: s.reason, Paths: []PathChange{}}
	}
	after, err := s.after(ctx)
	if err != nil {
		return &Summary{Reason: s.why(err), Paths: []PathChange{}}
	}
	changes := Diff(s.before, after)
	rec := &Record{Job: job, Before: s.before.Taken.UTC(), After: after.Taken.UTC(), Changes: []RecordedChange{}}
	if len(changes) > 0 {
		changes, rec.Attributed = attribute(s.ws, s.before.Taken, changes)
	}
	if len(changes) > 0 || stale(s.before, after) {
		s.store.Save(after)
	}
	sum := &Summary{Recorded: true, Paths: []PathChange{}, Record: rel}
	for _, c := range changes {
		rc := RecordedChange{Path: c.Path, Change: c.Kind, Before: stateOf(c.Before), After: stateOf(c.After)}
		rec.Changes = append(rec.Changes, rc)
		switch c.Kind {
		case Created:
			sum.Created++
		case Modified:
			sum.Modified++
		default:
			sum.Deleted++
		}
		if len(sum.Paths) < summaryPaths {
			sum.Paths = append(sum.Paths, PathChange{c.Path, c.Kind})
		}
		if !Restorable(rc) {
			sum.Unrestorable++
		}
	}
	sum.Truncated = len(changes) > len(sum.Paths)
	if err := writeRecord(s.ws, recordPath, rec); err != nil {
		return &Summary{Reason: "the job's changes could not be recorded: " + err.Error(), Paths: []PathChange{}}
	}
	return sum
}

// writeRecord writes a job's record, fsynced when it names changes. A
// record of no change is only renamed into place: it is written after
// every job, a crash of the machine that loses it costs nothing undo
// needed (undo then says the record is gone), and an fsync on a busy disk
// costs more than the scan.
func writeRecord(ws *workspace.Workspace, path string, rec *Record) error {
	if len(rec.Changes) > 0 || len(rec.Attributed) > 0 {
		return ws.Store.WriteJSON(path, rec)
	}
	raw, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(raw, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// after is the tree once the job ended: from the watch's events when they
// are known to be complete, else scanned again whole.
func (s *Session) after(ctx context.Context) (*Manifest, error) {
	if s.watch != nil {
		paths, ok := s.watch.changed()
		s.closeWatch()
		if ok {
			m, ok, err := s.store.rescan(s.ws, s.before, paths, s.limits)
			if ok || err != nil {
				return m, err
			}
		}
	}
	return s.store.Scan(ctx, s.ws, s.before, s.limits)
}

func (s *Session) closeWatch() {
	if s.watch != nil {
		s.watch.close()
		s.watch = nil
	}
}

// Restorable says undo can put a change back: what was there before is a
// symlink, a directory, a regular file whose content was kept, or nothing
// (a created path is removed); and what the job left is not a special
// file, which undo never removes.
func Restorable(c RecordedChange) bool {
	if c.After.Special() || c.Before.Special() {
		return false
	}
	if c.Before != nil && c.After != nil && (c.Before.Type == "directory") != (c.After.Type == "directory") {
		return false // a directory swapped with a file or link: undo does not swap them back
	}
	return c.Before == nil || c.Before.Type != "file" || c.Before.Kept
}

// LoadRecord reads a job's changes.json.
func LoadRecord(ws *workspace.Workspace, path string) (*Record, bool, error) {
	var r Record
	found, err := ws.Store.ReadJSON(path, &r)
	return &r, found, err
}

// BlobOf is a recorded content, checked against its hash.
func (s *Store) BlobOf(st *State) ([]byte, error) {
	var e Entry
	if st == nil {
		return nil, fmt.Errorf("no content was recorded")
	}
	sum, err := hex.DecodeString(st.SHA256)
	if err != nil || len(sum) != len(e.Sum) {
		return nil, fmt.Errorf("no content was recorded")
	}
	copy(e.Sum[:], sum)
	e.Kept = st.Kept
	return s.Blob(&e)
}

// txRecord is what attribution reads of a transaction.
type txRecord struct {
	Status      string    `json:"status"`
	CommittedAt time.Time `json:"committedAt"`
	Files       []struct {
		Path        string `json:"path"`
		AfterSHA256 string `json:"afterSha256"`
	} `json:"files"`
}

// attribute drops the changes an aw edit transaction committed during the
// job (the path now holds what the transaction wrote): those are the
// transaction's, and its rollback undoes them.
func attribute(ws *workspace.Workspace, since time.Time, changes []Change) ([]Change, []string) {
	dir := ws.Store.Path("transactions")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return changes, nil
	}
	wrote := map[string]string{} // path -> sha256 it was given ("" deleted)
	for _, d := range ents {
		fi, err := d.Info()
		if !d.IsDir() || err != nil || fi.ModTime().Before(since.Add(-time.Second)) {
			continue
		}
		var tx txRecord
		if found, err := ws.Store.ReadJSON(filepath.Join(dir, d.Name(), "transaction.json"), &tx); err != nil || !found {
			continue
		}
		if tx.CommittedAt.Before(since) {
			continue
		}
		for _, f := range tx.Files {
			wrote[f.Path] = f.AfterSHA256
		}
	}
	if len(wrote) == 0 {
		return changes, nil
	}
	var kept []Change
	var theirs []string
	for _, c := range changes {
		sum, ok := wrote[c.Path]
		now := ""
		if c.After != nil && c.After.Regular() {
			now = c.After.Hex()
		}
		if ok && sum == now && (c.After == nil || c.After.Regular()) {
			theirs = append(theirs, c.Path)
			continue
		}
		kept = append(kept, c)
	}
	return kept, theirs
}
