// Package undo puts back what a command job changed in the workspace and
// shows it as a diff, from the job's snapshot (engine/snapshot): the
// restore is an ordinary planned edit transaction, so it is previewed,
// gated, committed and rolled back like any other.
package undo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/agentic-workspace/aw/engine/command"
	"github.com/agentic-workspace/aw/engine/edit"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/snapshot"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// UndoRequest names the job whose changes to put back.
type UndoRequest struct {
	JobID string `json:"job_id" doc:"the job whose effect on the workspace to undo (a unique prefix of its id will do)"`
	Force bool   `json:"force,omitempty" doc:"also restore paths changed again after the job (destructive: it overwrites those later changes); default false: such paths are left alone and named"`
}

// DiffRequest names the job to show.
type DiffRequest struct {
	JobID string `json:"job_id" doc:"the job whose effect on the workspace to show as a unified diff (a unique prefix of its id will do)"`
}

// Skipped is a path undo leaves alone, and why.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// UndoData is an undo's planned transaction and what it leaves alone.
type UndoData struct {
	*edit.Result
	JobID string `json:"jobId"`
	// LeftAlone are paths changed again after the job (restored only with
	// force); NotRestorable are changes the snapshot cannot put back.
	LeftAlone     []Skipped `json:"leftAlone"`
	NotRestorable []Skipped `json:"notRestorable"`
}

// Undo plans the transaction that puts every path the job changed back as
// it was before the job: content and mode restored, created files removed,
// deleted files restored. A path changed again since the job is left alone
// unless force. Nothing is written: the transaction commits through the
// gate with `aw edit commit`, and rolls back like any other.
func Undo(ctx context.Context, ws *workspace.Workspace, req *UndoRequest) (envelope.Envelope, error) {
	j, rec, err := command.Recorded(ws, req.JobID)
	if err != nil {
		return envelope.Envelope{}, err
	}
	snaps := snapshot.Open(ws)
	d := &UndoData{JobID: j.ID, LeftAlone: []Skipped{}, NotRestorable: []Skipped{}}
	var rs []edit.Restoration
	for _, c := range rec.Changes {
		now, err := stateNow(ws, c.Path)
		if err != nil {
			d.NotRestorable = append(d.NotRestorable, Skipped{c.Path, err.Error()})
			continue
		}
		over := ""
		if !sameState(now, c.After) {
			over = "changed since the job: " + describe(now)
			if !req.Force {
				d.LeftAlone = append(d.LeftAlone, Skipped{c.Path, over})
				continue
			}
		}
		if sameState(now, c.Before) {
			continue // already as before (a later change put it back)
		}
		r, why := restoration(snaps, c, now)
		if why != "" {
			d.NotRestorable = append(d.NotRestorable, Skipped{c.Path, why})
			continue
		}
		r.Over = over
		rs = append(rs, r)
	}
	if len(rs) == 0 {
		e := envelope.Errorf(envelope.InvalidInput, "nothing of job %s can be undone: %s", j.ID, nothingWhy(rec, d)).With("jobId", j.ID).With("leftAlone", d.LeftAlone).With("notRestorable", d.NotRestorable)
		return envelope.Envelope{}, e
	}
	env, err := edit.PlanRestore(ws, fmt.Sprintf("undo of job %s (%s)", j.ID, j.Display()), rs)
	if err != nil {
		return envelope.Envelope{}, err
	}
	d.Result = env.Data.(*edit.Result)
	env.Data = d
	env.Summary = fmt.Sprintf("Planned %s to undo job %s: %d of its %d changed paths restored. Nothing is written yet: review it with `aw edit show %s`, commit it with `aw edit commit %s`.",
		d.TransactionID, j.ID, len(rs), len(rec.Changes), d.TransactionID, d.TransactionID)
	env.Fact("transaction %s (planned) undoes job %s: %d paths", d.TransactionID, j.ID, len(rs))
	if n := len(d.LeftAlone); n > 0 {
		env.Fact("%d paths changed again after the job were left alone (force restores them, destructive): %s", n, skippedPaths(d.LeftAlone))
	}
	if n := len(d.NotRestorable); n > 0 {
		env.Fact("%d changes cannot be restored: %s", n, skippedPaths(d.NotRestorable))
	}
	return env, nil
}

func nothingWhy(rec *snapshot.Record, d *UndoData) string {
	switch {
	case len(rec.Changes) == 0:
		return "it changed nothing in the workspace"
	case len(d.LeftAlone) > 0 && len(d.NotRestorable) == 0:
		return "every path it changed was changed again since (" + skippedPaths(d.LeftAlone) + "); pass force to restore them anyway (destructive)"
	case len(d.NotRestorable) > 0:
		return "its changes cannot be restored (" + skippedPaths(d.NotRestorable) + ")"
	}
	return "every path it changed is already as it was before the job"
}

func skippedPaths(s []Skipped) string {
	var out []string
	for i, k := range s {
		if i == 10 {
			out = append(out, fmt.Sprintf("and %d more", len(s)-10))
			break
		}
		out = append(out, k.Path+" ("+k.Reason+")")
	}
	return strings.Join(out, ", ")
}

// restoration is what puts c's path back, or why nothing can.
func restoration(snaps *snapshot.Store, c snapshot.RecordedChange, now *snapshot.State) (edit.Restoration, string) {
	r := edit.Restoration{Path: c.Path}
	if isDir(now) || isDir(c.Before) {
		return dirRestoration(c, now)
	}
	if now != nil {
		switch now.Type {
		case "file":
			r.Expect = now.SHA256
		case "symlink":
			sum := sha256.Sum256([]byte(now.Link))
			r.Expect = hex.EncodeToString(sum[:])
		default:
			return r, fmt.Sprintf("it is now a %s (a special file), which undo does not remove; remove it yourself if it should go", now.Type)
		}
	}
	switch {
	case c.Before == nil:
		return r, "" // created by the job: removed
	case c.Before.Type == "symlink":
		r.Exists, r.Link, r.Content = true, true, []byte(c.Before.Link)
		return r, ""
	case c.Before.Type != "file":
		return r, fmt.Sprintf("it was a %s (a special file) before the job, which undo does not make again", c.Before.Type)
	}
	b, err := snaps.BlobOf(c.Before)
	if err != nil {
		return r, err.Error()
	}
	r.Exists, r.Content, r.Mode = true, b, fs.FileMode(c.Before.Mode)
	return r, ""
}

// dirRestoration puts a directory back: one the job made is removed after
// the files, if it is then empty; one it removed is made again.
func dirRestoration(c snapshot.RecordedChange, now *snapshot.State) (edit.Restoration, string) {
	r := edit.Restoration{Path: c.Path, Dir: true}
	switch {
	case c.Before == nil && isDir(now):
		return r, ""
	case isDir(c.Before) && now == nil:
		r.Exists = true
		return r, ""
	}
	return r, fmt.Sprintf("it was %s before the job and is %s now, which undo does not swap", kind(c.Before), kind(now))
}

func isDir(st *snapshot.State) bool { return st != nil && st.Type == "directory" }

func kind(st *snapshot.State) string {
	if st == nil {
		return "absent"
	}
	return "a " + st.Type
}

// stateNow is a path's state on disk, nil when absent.
func stateNow(ws *workspace.Workspace, rel string) (*snapshot.State, error) {
	d, err := edit.ReadOnDisk(filepath.Join(ws.Root, filepath.FromSlash(rel)))
	if err != nil || !d.Present {
		return nil, err
	}
	st := &snapshot.State{Type: snapshot.TypeOf(d.Mode), Mode: uint32(d.Mode.Perm()), Size: d.Size, Link: d.Target}
	if st.Type == "file" {
		st.SHA256 = d.SHA256
	}
	return st, nil
}

// sameState compares what undo cares about: presence, type, content (or
// link target) and mode.
func sameState(a, b *snapshot.State) bool {
	if a == nil || b == nil {
		return a == b
	}
	// A directory is recorded by presence, a symlink has no mode of its own.
	return a.Type == b.Type && a.SHA256 == b.SHA256 && a.Link == b.Link && (a.Type == "symlink" || a.Type == "directory" || a.Mode == b.Mode)
}

func describe(st *snapshot.State) string {
	switch {
	case st == nil:
		return "now absent"
	case st.Type == "file":
		return fmt.Sprintf("now %d bytes, mode %o", st.Size, st.Mode)
	}
	return "now a " + st.Type
}

// DiffData is a job's effect as a unified diff.
type DiffData struct {
	JobID     string     `json:"jobId"`
	Files     []DiffFile `json:"files"`
	Diff      string     `json:"diff"`
	Truncated bool       `json:"truncated"`
}

// DiffFile is one path of a DiffData.
type DiffFile struct {
	Path      string `json:"path"`
	Change    string `json:"change"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
	// Note says why the content cannot be shown (not kept, a symlink).
	Note string `json:"note,omitempty"`
}

// Diff shows what a job changed, from its snapshot: the content before and
// after it, whatever happened to the files since.
func Diff(ctx context.Context, ws *workspace.Workspace, req *DiffRequest) (envelope.Envelope, error) {
	j, rec, err := command.Recorded(ws, req.JobID)
	if err != nil {
		return envelope.Envelope{}, err
	}
	snaps := snapshot.Open(ws)
	d := &DiffData{JobID: j.ID, Files: []DiffFile{}}
	var all strings.Builder
	for _, c := range rec.Changes {
		f := DiffFile{Path: c.Path, Change: c.Change}
		before, after, note := contents(snaps, c)
		if note != "" {
			f.Note = note
			fmt.Fprintf(&all, "--- a/%s\n+++ b/%s\n%s\n", c.Path, c.Path, note)
		} else {
			var mb, ma uint32
			if c.Before != nil {
				mb = c.Before.Mode
			}
			if c.After != nil {
				ma = c.After.Mode
			}
			text, add, del := edit.Unified(c.Path, c.Before != nil, c.After != nil, mb, ma, before, after)
			f.Additions, f.Deletions = add, del
			all.WriteString(text)
		}
		d.Files = append(d.Files, f)
	}
	full := all.String()
	d.Diff = full
	if limit := ws.Settings.MaxToolResultChars; len(full) > limit {
		d.Diff, d.Truncated = envelope.Clip(full, limit), true
	}
	env := envelope.New("", fmt.Sprintf("Job %s changed %d paths in the workspace.", j.ID, len(rec.Changes)), d)
	if d.Truncated {
		a, err := ws.Store.WriteArtifact("diff", j.ID+".diff", []byte(full), "unified diff of what job "+j.ID+" changed")
		if err != nil {
			return envelope.Envelope{}, err
		}
		env.Artifacts = append(env.Artifacts, a)
		env.Summary += " The diff is cut; the whole of it is " + a.Path + "."
	}
	env.Fact("job %s changed %d paths", j.ID, len(rec.Changes))
	env.Omit("data.diff")
	return env, nil
}

// contents are a change's before and after bytes, or why they cannot be
// shown.
func contents(snaps *snapshot.Store, c snapshot.RecordedChange) (before, after []byte, note string) {
	for _, side := range []struct {
		st  *snapshot.State
		out *[]byte
	}{{c.Before, &before}, {c.After, &after}} {
		if side.st == nil {
			continue
		}
		if side.st.Type == "symlink" {
			return nil, nil, "symlink to " + side.st.Link
		}
		if side.st.Type == "directory" {
			return nil, nil, "directory"
		}
		if side.st.Type != "file" {
			return nil, nil, "not a regular file (a " + side.st.Type + ")"
		}
		b, err := snaps.BlobOf(side.st)
		if err != nil {
			return nil, nil, "content not shown: " + err.Error()
		}
		*side.out = b
	}
	return before, after, ""
}
