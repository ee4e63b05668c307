// Package snapshot records what a command job did to the workspace, so
// `aw command undo` can put it back and `aw command diff` can show it.
//
// Before a job, the tree is scanned into a manifest: every file a search
// sees (denyPaths, list.ignore, .gitignore and .agentic/ hidden) with its
// stat and sha256, its content kept in a content-addressed blob store under
// .agentic/snapshots/blobs/. A scan reuses the previous manifest and hashes
// only files whose size, mtime, ctime, inode or mode changed, and always
// re-hashes files modified too close to the scan that recorded them to
// trust the timestamp. After the job (in its supervisor, so a background
// job is covered with no aw call waiting) the tree is scanned again and the
// two manifests are compared. Nothing here touches the user's .git, and
// blobs are copies, never hard links (an in-place write would change the
// snapshot with the file).
//
// A kill at any point leaves a usable store: blobs and the manifest are
// written to a temp file and renamed, the manifest carries a checksum, and
// a manifest that fails it is ignored (the next scan hashes everything).
package snapshot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentic-workspace/aw/engine/workspace"
)

// Dir is the store's directory under .agentic/.
const Dir = "snapshots"

// racyWindow is how close to a scan a file may have been modified and
// still have its stat trusted by the next scan: file systems keep times at
// a granularity (up to 2 s on some), and a write within it can leave size
// and mtime unchanged.
const racyWindow = 2 * time.Second

// Entry is one path as a scan saw it.
type Entry struct {
	Path  string
	Mode  fs.FileMode // type bits and permissions
	Size  int64
	Mtime int64 // nanoseconds
	Ctime int64
	Ino   uint64
	Sum   [32]byte // of the content; of the target for a symlink
	Link  string   // a symlink's target
	Kept  bool     // the content is in the blob store
	Racy  bool     // modified within racyWindow of the scan
}

// Hex is the entry's sha256 as read and stat report it.
func (e *Entry) Hex() string { return hex.EncodeToString(e.Sum[:]) }

// Regular says the entry is a regular file.
func (e *Entry) Regular() bool { return e.Mode.IsRegular() }

// same says e and o have the same stat: the content need not be read.
func (e *Entry) same(o *Entry) bool {
	return e.Mode == o.Mode && e.Size == o.Size && e.Mtime == o.Mtime && e.Ctime == o.Ctime && e.Ino == o.Ino
}

// Manifest is one scan of the tree.
type Manifest struct {
	Taken   time.Time
	Entries map[string]*Entry
	// Unkept counts regular files recorded by hash only: over the file
	// size cap or past the byte budget.
	Unkept int
	// Racy counts entries modified within racyWindow of the scan: the next
	// scan hashes them again, and should save what it then trusts.
	Racy int
}

// Limits bound a scan (the commands.snapshot* settings).
type Limits struct {
	MaxFiles     int   // more files than this: no snapshot at all
	MaxBytes     int64 // content kept for one tree; past it, hash only
	MaxFileBytes int64 // a larger file is recorded by hash only
}

// Walk visits every path of the tree that a search sees (denyPaths,
// list.ignore, .gitignore and .agentic/ hidden; symlinks not followed),
// concurrently. engine/inspect, which owns that walk, sets it: it sits
// above engine/command, which snapshots its jobs.
var Walk func(ctx context.Context, ws *workspace.Workspace, visit func(rel, abs string, typ fs.FileMode)) error

// ErrTooMany is a tree with more files than Limits.MaxFiles.
var ErrTooMany = errors.New("too many files")

// Store is a workspace's snapshot store.
type Store struct {
	dir string // .agentic/snapshots
}

// Open returns the store of the workspace at root (created on first write).
func Open(ws *workspace.Workspace) *Store { return &Store{dir: ws.Store.Path(Dir)} }

func (s *Store) blobPath(hexSum string) string {
	return filepath.Join(s.dir, "blobs", hexSum[:2], hexSum)
}

// Blob returns a kept content, checked against its hash: a blob that was
// pruned or damaged is an error, never wrong bytes.
func (s *Store) Blob(e *Entry) ([]byte, error) {
	if !e.Kept {
		return nil, fmt.Errorf("its content was not kept (over the size caps)")
	}
	b, err := os.ReadFile(s.blobPath(e.Hex()))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("its content was pruned from the snapshot store")
	}
	if err != nil {
		return nil, err
	}
	if sha256.Sum256(b) != e.Sum {
		return nil, fmt.Errorf("its content in the snapshot store is damaged")
	}
	return b, nil
}

// keep writes a blob unless it is there already.
func (s *Store) keep(sum [32]byte, b []byte) error {
	p := s.blobPath(hex.EncodeToString(sum[:]))
	if _, err := os.Lstat(p); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return writeAtomic(p, b)
}

// writeAtomic writes a temp file beside path and renames it over path. It
// does not fsync: the store is a record of the tree, rebuilt by the next
// scan if a crash of the machine loses it, and a kill of the process
// never leaves a half-written file.
func writeAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// Scan records the tree, reusing prev's hashes where the stat is unchanged.
func (s *Store) Scan(ctx context.Context, ws *workspace.Workspace, prev *Manifest, lim Limits) (*Manifest, error) {
	m := &Manifest{Taken: time.Now(), Entries: map[string]*Entry{}}
	racyAfter := m.Taken.Add(-racyWindow).UnixNano()
	var (
		mu      sync.Mutex
		n       atomic.Int64
		kept    atomic.Int64
		unkept  atomic.Int64
		racy    atomic.Int64
		firstEr error
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	err := Walk(ctx, ws, func(rel, abs string, typ fs.FileMode) {
		if n.Add(1) > int64(lim.MaxFiles) {
			cancel()
			return
		}
		e, err := s.entry(rel, abs, prev, lim, &kept)
		if err != nil {
			mu.Lock()
			if firstEr == nil {
				firstEr = err
			}
			mu.Unlock()
			return
		}
		if e == nil {
			return // gone since the directory was read
		}
		e.Racy = e.Mtime >= racyAfter || e.Ctime >= racyAfter
		if e.Racy {
			racy.Add(1)
		}
		if e.Regular() && !e.Kept {
			unkept.Add(1)
		}
		mu.Lock()
		m.Entries[rel] = e
		mu.Unlock()
	})
	if n.Load() > int64(lim.MaxFiles) {
		return nil, ErrTooMany
	}
	if err != nil {
		return nil, err
	}
	if firstEr != nil {
		return nil, firstEr
	}
	m.Unkept, m.Racy = int(unkept.Load()), int(racy.Load())
	return m, nil
}

// entry stats one path and, when prev cannot vouch for it, hashes it and
// keeps its content within the limits.
func (s *Store) entry(rel, abs string, prev *Manifest, lim Limits, kept *atomic.Int64) (*Entry, error) {
	fi, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	e := &Entry{Path: rel, Mode: fi.Mode(), Size: fi.Size(), Mtime: fi.ModTime().UnixNano()}
	e.Ctime, e.Ino = statExtra(fi)
	if prev != nil {
		if p, ok := prev.Entries[rel]; ok && !p.Racy && p.same(e) {
			e.Sum, e.Link, e.Kept = p.Sum, p.Link, p.Kept
			if e.Kept {
				kept.Add(e.Size)
			}
			return e, nil
		}
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		e.Link, err = os.Readlink(abs)
		e.Sum = sha256.Sum256([]byte(e.Link))
	case fi.Mode().IsRegular() && e.Size <= lim.MaxFileBytes:
		var b []byte
		if b, err = os.ReadFile(abs); err != nil {
			break
		}
		e.Sum = sha256.Sum256(b)
		e.Size = int64(len(b))
		if kept.Add(e.Size) <= lim.MaxBytes {
			if err = s.keep(e.Sum, b); err == nil {
				e.Kept = true
			}
		} else {
			kept.Add(-e.Size)
		}
	case fi.Mode().IsRegular():
		e.Sum, err = hashFile(abs)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if errors.Is(err, fs.ErrPermission) {
		// Unreadable: recorded by stat, never restorable.
		return e, nil
	}
	return e, err
}

func hashFile(abs string) ([32]byte, error) {
	var sum [32]byte
	f, err := os.Open(abs)
	if err != nil {
		return sum, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return sum, err
	}
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

// Change kinds.
const (
	Created  = "created"
	Modified = "modified" // content, mode or (for a symlink) target
	Deleted  = "deleted"
)

// Change is one path a job changed: its state before and after (nil when
// absent).
type Change struct {
	Path   string
	Kind   string
	Before *Entry
	After  *Entry
}

// Diff lists what changed from before to after, by path.
func Diff(before, after *Manifest) []Change {
	var out []Change
	for p, a := range after.Entries {
		b, ok := before.Entries[p]
		switch {
		case !ok:
			out = append(out, Change{Path: p, Kind: Created, After: a})
		case b.Mode != a.Mode || b.Sum != a.Sum:
			out = append(out, Change{Path: p, Kind: Modified, Before: b, After: a})
		}
	}
	for p, b := range before.Entries {
		if _, ok := after.Entries[p]; !ok {
			out = append(out, Change{Path: p, Kind: Deleted, Before: b})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
