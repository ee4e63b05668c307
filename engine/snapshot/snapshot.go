// Package snapshot records what a command job did to the workspace, so
// `aw command undo` can put it back and `aw command diff` can show it.
//
// Before a job, the tree is scanned into a manifest: every file a search
// sees (denyPaths, list.ignore, .gitignore and .agentic/ hidden) with its
// stat and sha256, its content kept in a content-addressed blob store under
// .agentic/snapshots/blobs/. A scan reuses the previous manifest and hashes
// only files whose size, mtime, ctime, inode or mode changed, and always
// re-hashes files modified too close to the scan that recorded them to
// trust the timestamp. Directories are recorded by presence. After the
// job (in its supervisor, so a background job is covered with no aw call
// waiting) the tree is looked at again and the two manifests are compared:
// on Linux only the paths an inotify watch on every directory queued
// during the job, else (or when those events cannot be complete) the
// whole tree. Nothing here touches the user's .git, and
// blobs are copies, never hard links (an in-place write would change the
// snapshot with the file).
//
// A kill at any point leaves a usable store: blobs and the manifest are
// written to a temp file and renamed, the manifest carries a checksum, and
// a manifest that fails it is ignored (the next scan hashes everything).
// A crash of the machine cannot leave a manifest or job record naming a
// blob that is not on disk: a scan makes the blobs it wrote durable before
// it returns, and the manifest and records are fsynced with their
// directories.
package snapshot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
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

// Stat is what a scan compares to trust a path unchanged without reading
// it (an index of file contents compares the same).
type Stat struct {
	Mode  fs.FileMode // type bits and permissions
	Size  int64
	Mtime int64 // nanoseconds
	Ctime int64
	Ino   uint64
}

// Entry is one path as a scan saw it.
type Entry struct {
	Path string
	Stat
	Sum  [32]byte // of the content; of the target for a symlink
	Link string   // a symlink's target
	Kept bool     // the content is in the blob store
	Racy bool     // modified within racyWindow of the scan
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
	// hashed counts the entries the scan could not take from the previous
	// manifest: when it is not 0, the saved manifest is out of date.
	hashed int
	// same is the manifest whose entries these are, unchanged (a watched
	// job that touched nothing, a scan that found nothing new): Diff need
	// not compare them. The map is shared, never written.
	same *Manifest
}

// Limits bound a scan (the commands.snapshot* settings).
type Limits struct {
	MaxFiles     int   // more files than this: no snapshot at all
	MaxBytes     int64 // content kept for one tree; past it, hash only
	MaxFileBytes int64 // a larger file is recorded by hash only
}

// Found is one path a Walk reports.
type Found struct {
	Worker int    // which of the walk's workers visits it, from 0
	Rel    string // root-relative, slash-separated
	Parent string // the absolute directory it is in
	Name   string
	Dir    *os.File    // the open parent directory, valid during the visit only (nil: none open)
	Type   fs.FileMode // 0 for a regular file, else its type bits (fs.ModeDir too)
}

// lstat fills e's stat from the path, not following a symlink.
func (f *Found) lstat(e *Entry) (err error) {
	e.Stat, err = StatAt(f.Dir, f.Parent, f.Name)
	return err
}

// Abs is the path's absolute form. A scan builds it only for the entries it
// reads: most are statted relative to Dir.
func (f *Found) Abs() string { return f.Parent + string(filepath.Separator) + f.Name }

// Walk visits, with workers goroutines, every directory, file, symlink
// and special file of the tree that a search sees (denyPaths, list.ignore,
// .gitignore and .agentic/ hidden; symlinks not followed). engine/inspect,
// which owns that walk, sets it: it sits above engine/command, which
// snapshots its jobs, so neither can import the other's side.
var Walk func(ctx context.Context, ws *workspace.Workspace, workers int, visit func(Found)) error

// scanWorkers is how many goroutines walk the tree: its cost is system
// calls, and two keep a loaded machine's cores busy without contending.
const scanWorkers = 2

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

// keep writes a blob unless it is there already, and returns the path it
// wrote ("" when it was there). It does not fsync: the scan makes what it
// wrote durable at once, before any manifest or job record names it.
func (s *Store) keep(sum [32]byte, b []byte) (string, error) {
	p := s.blobPath(hex.EncodeToString(sum[:]))
	if _, err := os.Lstat(p); err == nil {
		return "", nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return "", err
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	crashPoint("snapshot.blob")
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		os.Remove(tmp.Name()) // a kill leaves it for aw gc, never a torn blob
		return "", err
	}
	return p, nil
}

// Scan records the tree, reusing prev's hashes where the stat is unchanged.
// Each worker collects its own entries; the manifest's map is built once
// at the end. An entry prev vouches for is prev's own, shared, not copied.
func (s *Store) Scan(ctx context.Context, ws *workspace.Workspace, prev *Manifest, lim Limits) (*Manifest, error) {
	return s.scan(ctx, ws, prev, lim, nil)
}

// scan is Scan with, when w is not nil, a watch on every directory it
// sees, set before the directory is read.
func (s *Store) scan(ctx context.Context, ws *workspace.Workspace, prev *Manifest, lim Limits, w *watcher) (*Manifest, error) {
	m := &Manifest{Taken: time.Now()}
	if w != nil {
		w.add(".", ws.Root)
	}
	sc := &scan{store: s, prev: prev, lim: lim, racyAfter: m.Taken.Add(-racyWindow).UnixNano()}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var outs [scanWorkers][]*Entry
	if prev != nil {
		for i := range outs {
			outs[i] = make([]*Entry, 0, len(prev.Entries)/scanWorkers+16)
		}
	}
	err := Walk(ctx, ws, scanWorkers, func(f Found) {
		if f.Type == fs.ModeDir && w != nil {
			w.add(f.Rel, f.Abs())
		} else if sc.n.Add(1) > int64(lim.MaxFiles) {
			cancel()
			return
		}
		e, err := sc.entry(f)
		if err != nil {
			sc.fail(err)
			return
		}
		if e != nil {
			outs[f.Worker] = append(outs[f.Worker], e)
		}
	})
	if sc.n.Load() > int64(lim.MaxFiles) {
		return nil, ErrTooMany
	}
	if err == nil {
		err = sc.err
	}
	if err == nil {
		err = s.sync(sc.wrote)
	}
	if err != nil {
		return nil, err
	}
	n := 0
	for _, out := range outs {
		n += len(out)
	}
	if prev != nil && sc.hashed.Load() == 0 && n == len(prev.Entries) {
		// Every path is prev's own, unchanged: so is the whole tree.
		m.Entries, m.Unkept, m.Racy, m.same = prev.Entries, prev.Unkept, prev.Racy, prev
		return m, nil
	}
	m.Entries = make(map[string]*Entry, n)
	for _, out := range outs {
		for _, e := range out {
			m.Entries[e.Path] = e
		}
	}
	m.count(sc)
	return m, nil
}

// count sets the manifest's tallies once its entries are in.
func (m *Manifest) count(sc *scan) {
	for _, e := range m.Entries {
		if e.Racy {
			m.Racy++
		}
		if e.Regular() && !e.Kept {
			m.Unkept++
		}
	}
	m.hashed = int(sc.hashed.Load())
}

// rescan is the scan after a job that a watcher followed: before's
// entries, with only the paths its events name looked at again. ok is
// false when that cannot be exact and the whole tree must be scanned: a
// directory or a .gitignore changed, or a path appeared that only a walk
// can place within the ignore rules.
func (s *Store) rescan(ws *workspace.Workspace, before *Manifest, paths map[string]bool, lim Limits) (m *Manifest, ok bool, err error) {
	if len(paths) == 0 {
		return &Manifest{Taken: time.Now(), Entries: before.Entries, Unkept: before.Unkept, Racy: before.Racy, same: before}, true, nil
	}
	m = &Manifest{Taken: time.Now(), Entries: maps.Clone(before.Entries)}
	sc := &scan{store: s, prev: before, lim: lim, racyAfter: m.Taken.Add(-racyWindow).UnixNano()}
	for _, e := range before.Entries {
		if e.Kept {
			sc.kept.Add(e.Size)
		}
	}
	for rel := range paths {
		name := path.Base(rel)
		if name == ".gitignore" {
			return nil, false, nil
		}
		old := before.Entries[rel]
		found := Found{Rel: rel, Parent: filepath.Dir(filepath.Join(ws.Root, filepath.FromSlash(rel))), Name: name}
		var cur Entry
		err := found.lstat(&cur)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if old != nil && old.Mode.IsDir() {
				return nil, false, nil
			}
			delete(m.Entries, rel)
			continue
		case err != nil:
			return nil, false, err
		case old == nil || old.Mode.IsDir() || cur.Mode.IsDir():
			return nil, false, nil
		}
		if old.Kept {
			sc.kept.Add(-old.Size)
		}
		found.Type = cur.Mode.Type()
		e, err := sc.entry(found)
		if err != nil {
			return nil, false, err
		}
		if e == nil {
			delete(m.Entries, rel)
		} else {
			m.Entries[rel] = e
		}
	}
	if err := s.sync(sc.wrote); err != nil {
		return nil, false, err
	}
	m.count(sc)
	return m, true, nil
}

// scan is one Scan's shared state.
type scan struct {
	store     *Store
	prev      *Manifest
	lim       Limits
	racyAfter int64
	n         atomic.Int64 // paths seen
	kept      atomic.Int64 // content bytes kept
	hashed    atomic.Int64 // entries prev could not vouch for
	mu        sync.Mutex
	err       error
	wrote     []string // blobs written, to sync
}

func (sc *scan) fail(err error) {
	sc.mu.Lock()
	if sc.err == nil {
		sc.err = err
	}
	sc.mu.Unlock()
}

// entry stats one path and, when prev cannot vouch for it, hashes it and
// keeps its content within the limits; nil when it is gone since its
// directory was read. A directory is recorded by presence only.
func (sc *scan) entry(f Found) (*Entry, error) {
	if f.Type == fs.ModeDir {
		if p := sc.prevEntry(f.Rel); p != nil && p.Mode == fs.ModeDir {
			return p, nil
		}
		sc.hashed.Add(1)
		return &Entry{Path: f.Rel, Stat: Stat{Mode: fs.ModeDir}}, nil
	}
	var cur Entry
	err := f.lstat(&cur)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if p := sc.prevEntry(f.Rel); p != nil && !p.Racy && p.same(&cur) {
		if p.Kept {
			sc.kept.Add(p.Size)
		}
		return p, nil
	}
	sc.hashed.Add(1)
	e := new(Entry)
	*e = cur
	e.Path = f.Rel
	e.Racy = e.Mtime >= sc.racyAfter || e.Ctime >= sc.racyAfter
	switch {
	case e.Mode&fs.ModeSymlink != 0:
		e.Link, err = os.Readlink(f.Abs())
		e.Sum = sha256.Sum256([]byte(e.Link))
	case e.Mode.IsRegular() && e.Size <= sc.lim.MaxFileBytes:
		var b []byte
		if b, err = os.ReadFile(f.Abs()); err != nil {
			break
		}
		e.Sum = sha256.Sum256(b)
		e.Size = int64(len(b))
		if sc.kept.Add(e.Size) <= sc.lim.MaxBytes {
			var wrote string
			if wrote, err = sc.store.keep(e.Sum, b); err == nil {
				e.Kept = true
			}
			if wrote != "" {
				sc.mu.Lock()
				sc.wrote = append(sc.wrote, wrote)
				sc.mu.Unlock()
			}
		} else {
			sc.kept.Add(-e.Size)
		}
	case e.Mode.IsRegular():
		e.Sum, err = hashFile(f.Abs())
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

func (sc *scan) prevEntry(rel string) *Entry {
	if sc.prev == nil {
		return nil
	}
	return sc.prev.Entries[rel]
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
	if after.same == before {
		return out
	}
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
