// Package store owns the .agentic/ directory: its layout, ids, the store lock
// and atomic writes. Every read-modify-write of a state file happens under
// Lock; every write goes through WriteFile, so a crash leaves the old file or
// the new one, never half of either. It never decides policy: callers jail
// paths before they get here.
package store

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
)

// Store is the .agentic/ directory of one workspace.
type Store struct {
	Root string // the workspace root
	Dir  string // Root/.agentic
}

// Open returns the store of root. Nothing is created until something is written.
func Open(root string) *Store {
	return &Store{Root: root, Dir: filepath.Join(root, ".agentic")}
}

// Path joins elements under the store directory.
func (s *Store) Path(elem ...string) string {
	return filepath.Join(append([]string{s.Dir}, elem...)...)
}

// Rel returns the root-relative slash form of a store path, as envelopes show it.
func (s *Store) Rel(abs string) string {
	rel, err := filepath.Rel(s.Root, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(rel)
}

// Lock takes the store lock (an exclusive flock on .agentic/lock), waiting
// for other aw processes. The lock dies with the process, so a kill -9
// never leaves the store locked.
func (s *Store) Lock() (unlock func(), err error) {
	return s.LockFile("lock")
}

// LockFile takes an exclusive flock on another lock file under the store
// (name is store-relative, "index/lock"), for state that is written for
// long enough (a search index being built) that holding the store lock
// would stall every other aw process.
func (s *Store) LockFile(name string) (unlock func(), err error) {
	p := s.Path(filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, storeErr("create", filepath.Dir(p), err)
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, storeErr("open the lock", p, err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, storeErr("lock", p, err)
	}
	return func() { unlockFile(f); f.Close() }, nil
}

// WriteFile replaces path atomically: a temp file in the same directory,
// fsync, rename over path, fsync of the directory.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return storeErr("create", dir, err)
	}
	if err := Replace(path, data, perm); err != nil {
		return storeErr("write", path, err)
	}
	return SyncDir(dir)
}

// Replace writes a temp file beside path (".<name>.aw-*"), fsyncs it and
// renames it over path. The directory is not fsynced: a caller replacing
// many files in one directory does that once (SyncDir). A process killed
// here leaves at most the temp file, never a half-written path.
func Replace(path string, data []byte, perm fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".aw-*")
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	ok = true
	return nil
}

// SyncDir fsyncs a directory so a rename or create in it is durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return storeErr("open", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, errSyncUnsupported) {
		return storeErr("fsync", dir, err)
	}
	return nil
}

// ReadJSON decodes a state file into v. It reports found=false for a
// missing file; a file that does not parse is INTERNAL naming its path and
// is never replaced by an empty state.
func (s *Store) ReadJSON(path string, v any) (found bool, err error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, storeErr("read", path, err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		rel := s.Rel(path)
		return false, envelope.Errorf(envelope.Internal,
			"state file %s does not parse (%v); it was left untouched: restore it from a backup or move it aside, then retry", rel, err).With("path", rel)
	}
	return true, nil
}

// WriteJSON writes v as indented JSON, atomically.
func (s *Store) WriteJSON(path string, v any) error {
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFile(path, append(raw, '\n'), 0o644)
}

// Update runs a read-modify-write of one JSON state file under the store
// lock: fn sees the current state (zero value when the file is missing)
// and its changes are written atomically when it returns nil.
func Update[T any](s *Store, path string, fn func(*T) error) error {
	unlock, err := s.Lock()
	if err != nil {
		return err
	}
	defer unlock()
	var state T
	if _, err := s.ReadJSON(path, &state); err != nil {
		return err
	}
	if err := fn(&state); err != nil {
		return err
	}
	return s.WriteJSON(path, &state)
}

// NewID returns prefix_ followed by a 48-bit millisecond timestamp and 64
// random bits in lower-case base32: ids sort by creation time as strings.
func NewID(prefix string) string {
	var b [14]byte
	ms := uint64(time.Now().UnixMilli())
	binary.BigEndian.PutUint64(b[:8], ms<<16)
	if _, err := rand.Read(b[6:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return prefix + "_" + strings.ToLower(idEncoding.EncodeToString(b[:]))
}

var idEncoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// ValidID reports whether id has the given prefix and an id's shape, so ids
// can be used as file names without further checks.
func ValidID(id, prefix string) bool {
	rest, ok := strings.CutPrefix(id, prefix+"_")
	if !ok || len(rest) != 23 {
		return false
	}
	for _, c := range rest {
		if !strings.ContainsRune("0123456789abcdefghjkmnpqrstvwxyz", c) {
			return false
		}
	}
	return true
}

// WriteArtifact stores data under .agentic/artifacts/ and describes it.
// The name is prefixed with a fresh id so artifacts never collide.
func (s *Store) WriteArtifact(kind, name string, data []byte, description string) (envelope.Artifact, error) {
	path := s.Path("artifacts", NewID("artifact")+"-"+name)
	if err := WriteFile(path, data, 0o644); err != nil {
		return envelope.Artifact{}, err
	}
	sum := sha256.Sum256(data)
	return envelope.Artifact{
		Kind:        kind,
		Path:        s.Rel(path),
		SHA256:      hex.EncodeToString(sum[:]),
		Bytes:       int64(len(data)),
		Description: description,
	}, nil
}

func storeErr(verb, path string, err error) error {
	return envelope.Errorf(envelope.Internal, "cannot %s %s: %v; check permissions and free space under the workspace", verb, path, err).With("path", path)
}
