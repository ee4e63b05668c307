package inspect

import (
	"bytes"
	"context"
	"path"
	"path/filepath"
	"sync/atomic"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/snapshot"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// FileWalk is a walk over the files a search would read, for searches that
// live outside this package (structural search): the same jail, denyPaths,
// list.ignore and .gitignore rules, the same parallel walk.
type FileWalk struct {
	Want  func(rel string) bool // read only files it accepts (by name); nil: all
	Limit int                   // larger files are skipped; 0: 16 MiB
	// Visit gets each file's root-relative path and content (valid only
	// during the call), from one worker per core at once. Binary files
	// (a NUL byte) are skipped.
	Visit func(rel string, content []byte)
	// Unchanged, when set, is asked first with the file's lstat result;
	// when it says true the file is not read (an index that knows the
	// file's content by its size and mtime skips it).
	Unchanged func(rel string, st snapshot.Stat) bool
	// Skip, when set, hears of each file read and skipped as binary or too
	// large (not one that could not be read): an index can remember it
	// by its stat instead of reading it again.
	Skip func(rel string)
}

// Run walks path (a file, searched even when an ignore rule covers it, or a
// directory) and returns its display form and how many files it skipped
// (binary, too large or unreadable).
func (fw FileWalk) Run(ctx context.Context, ws *workspace.Workspace, path string) (string, int, error) {
	base, fi, err := walkBase(ws, path)
	if err != nil {
		return "", 0, err
	}
	var skipped atomic.Int64
	if !fi.IsDir() {
		fw.read(&walker{}, fileEntry(base), &skipped)
	} else {
		w := &walk{ws: ws, base: base, ignore: walkIgnore(ws), visit: func(wk *walker, e entry) {
			if e.typ != 0 || fw.Want != nil && !fw.Want(e.rel) {
				return
			}
			fw.read(wk, e, &skipped)
		}}
		w.run(ctx, nil)
	}
	if err := ctx.Err(); err != nil {
		return "", 0, envelope.Errorf(envelope.Timeout, "the walk was cancelled: %v", err)
	}
	return display(base.Rel), int(skipped.Load()), nil
}

// Paths does for the root-relative paths rels what Run does for the files
// of a walk, without the walk: a path the walk would not visit (denied,
// ignored) is passed over. It returns how many files it skipped and the
// paths it cannot judge alone, which the caller must walk for: a directory,
// a path that is not there, one that is not a regular file or is reached
// through a symlink (a walk never follows one), a .gitignore.
func (fw FileWalk) Paths(ctx context.Context, ws *workspace.Workspace, rels []string) (int, []string) {
	var skipped atomic.Int64
	var walkFor []string
	wk := &walker{}
	seen := newSeer(ws)
	for i, rel := range rels {
		if ctx.Err() != nil {
			return int(skipped.Load()), append(walkFor, rels[i:]...)
		}
		abs := filepath.Join(ws.Root, filepath.FromSlash(rel))
		p, err := ws.Jail.Resolve(rel, workspace.Read)
		var st snapshot.Stat
		if err == nil {
			st, err = snapshot.StatAt(nil, filepath.Dir(abs), filepath.Base(abs))
		}
		switch {
		case err != nil || p.Abs != abs || !st.Mode.IsRegular() || path.Base(rel) == ".gitignore":
			walkFor = append(walkFor, rel)
		case seen.seen(rel, false) && (fw.Want == nil || fw.Want(rel)):
			fw.read(wk, entry{parent: filepath.Dir(abs), rel: rel, name: filepath.Base(abs)}, &skipped)
		}
	}
	return int(skipped.Load()), walkFor
}

// read hands one file to the walk's callbacks.
func (fw FileWalk) read(wk *walker, e entry, skipped *atomic.Int64) {
	limit := fw.Limit
	if limit <= 0 {
		limit = wholeFileLimit
	}
	if fw.Unchanged != nil {
		if st, err := snapshot.StatAt(e.dir, e.parent, e.name); err == nil && fw.Unchanged(e.rel, st) {
			return
		}
	}
	buf, more, err := readSmall(e.abs(), wk.buf, limit)
	if cap(buf) <= limit {
		wk.buf = buf[:0]
	}
	if err != nil || more || bytes.IndexByte(buf, 0) >= 0 {
		skipped.Add(1)
		if err == nil && fw.Skip != nil {
			fw.Skip(e.rel)
		}
		return
	}
	fw.Visit(e.rel, buf)
}
