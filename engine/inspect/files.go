package inspect

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"sync/atomic"

	"github.com/agentic-workspace/aw/engine/envelope"
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
	Unchanged func(rel string, fi fs.FileInfo) bool
}

// Run walks path (a file, searched even when an ignore rule covers it, or a
// directory) and returns its display form and how many files it skipped
// (binary, too large or unreadable).
func (fw FileWalk) Run(ctx context.Context, ws *workspace.Workspace, path string) (string, int, error) {
	base, fi, err := walkBase(ws, path)
	if err != nil {
		return "", 0, err
	}
	limit := fw.Limit
	if limit <= 0 {
		limit = wholeFileLimit
	}
	var skipped atomic.Int64
	read := func(wk *walker, e entry) {
		if fw.Unchanged != nil {
			if fi, err := os.Lstat(e.abs()); err == nil && fw.Unchanged(e.rel, fi) {
				return
			}
		}
		buf, more, err := readSmall(e.abs(), wk.buf, limit)
		if cap(buf) <= limit {
			wk.buf = buf[:0]
		}
		if err != nil || more || bytes.IndexByte(buf, 0) >= 0 {
			skipped.Add(1)
			return
		}
		fw.Visit(e.rel, buf)
	}
	if !fi.IsDir() {
		read(&walker{}, fileEntry(base))
	} else {
		w := &walk{ws: ws, base: base, ignore: walkIgnore(ws), visit: func(wk *walker, e entry) {
			if e.typ != 0 || fw.Want != nil && !fw.Want(e.rel) {
				return
			}
			read(wk, e)
		}}
		w.run(ctx, nil)
	}
	if err := ctx.Err(); err != nil {
		return "", 0, envelope.Errorf(envelope.Timeout, "the walk was cancelled: %v", err)
	}
	return display(base.Rel), int(skipped.Load()), nil
}
