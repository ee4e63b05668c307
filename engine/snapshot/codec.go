package snapshot

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/agentic-workspace/aw/engine/store"
)

// The manifest is a compact binary file, not JSON: a tree of 50,000 files
// is read on every command, and JSON would cost tens of milliseconds each
// way. Paths are sorted and each is stored as the length it shares with
// the one before and the rest; a sha256 is stored only where there is
// one. Its last 32 bytes are the sha256 of the rest, so a torn or damaged
// manifest is never trusted.
var magic = []byte("aw-snapshot 3\n")

// Entry flags in the manifest.
const (
	flagKept = 1 << iota
	flagRacy
	flagSum
	flagLink
)

func (s *Store) manifestPath() string { return filepath.Join(s.dir, "manifest") }

// Latest is the last manifest any scan saved, nil when there is none or
// it is unreadable (the next scan then hashes everything).
func (s *Store) Latest() *Manifest {
	b, err := os.ReadFile(s.manifestPath())
	if err != nil {
		return nil
	}
	m, err := decode(b)
	if err != nil {
		return nil
	}
	return m
}

// Save makes m the manifest the next scan starts from.
func (s *Store) Save(m *Manifest) error {
	crashPoint("snapshot.manifest")
	return store.WriteFile(s.manifestPath(), encode(m), 0o644)
}

func encode(m *Manifest) []byte {
	paths := make([]string, 0, len(m.Entries))
	for p := range m.Entries {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	b := make([]byte, 0, 64+len(paths)*64)
	b = append(b, magic...)
	b = binary.AppendVarint(b, m.Taken.UnixNano())
	b = binary.AppendUvarint(b, uint64(m.Unkept))
	b = binary.AppendUvarint(b, uint64(m.Racy))
	b = binary.AppendUvarint(b, uint64(len(paths)))
	last := ""
	for _, p := range paths {
		e := m.Entries[p]
		shared := 0
		for shared < len(last) && shared < len(p) && last[shared] == p[shared] {
			shared++
		}
		b = binary.AppendUvarint(b, uint64(shared))
		b = appendString(b, p[shared:])
		last = p
		var flags byte
		if e.Kept {
			flags |= flagKept
		}
		if e.Racy {
			flags |= flagRacy
		}
		if e.Sum != ([32]byte{}) {
			flags |= flagSum
		}
		if e.Link != "" {
			flags |= flagLink
		}
		b = append(b, flags)
		b = binary.AppendUvarint(b, uint64(e.Mode))
		if e.Mode.IsDir() {
			continue // recorded by presence only
		}
		b = binary.AppendVarint(b, e.Size)
		b = binary.AppendVarint(b, e.Mtime)
		b = binary.AppendVarint(b, e.Ctime)
		b = binary.AppendUvarint(b, e.Ino)
		if flags&flagSum != 0 {
			b = append(b, e.Sum[:]...)
		}
		if flags&flagLink != 0 {
			b = appendString(b, e.Link)
		}
	}
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

var errCorrupt = errors.New("snapshot manifest is damaged")

// decode reads a manifest with a few allocations, not several per entry:
// the entries are one slice, and the paths one string they share.
func decode(b []byte) (*Manifest, error) {
	if len(b) < len(magic)+32 || !bytes.HasPrefix(b, magic) {
		return nil, errCorrupt
	}
	body := b[:len(b)-32]
	if sha256.Sum256(body) != [32]byte(b[len(b)-32:]) {
		return nil, errCorrupt
	}
	r := store.NewDecoder(body[len(magic):], errCorrupt)
	m := &Manifest{Taken: time.Unix(0, r.Varint())}
	m.Unkept = int(r.Uvarint())
	m.Racy = int(r.Uvarint())
	n := r.Uvarint()
	if n > uint64(r.Len()) {
		return nil, errCorrupt
	}
	ents := make([]Entry, n)
	ends := make([]int, n)
	// The paths, expanded, are about as long as the whole body (the stat
	// and hash of each weigh about what its shared prefix does): one
	// allocation instead of a doubling slice copied a dozen times.
	arena := make([]byte, 0, len(body))
	last := 0 // where the previous path starts in arena
	for i := range ents {
		if r.Err() != nil {
			break
		}
		shared := int(r.Uvarint())
		if prev := len(arena) - last; shared > prev {
			return nil, errCorrupt
		}
		start := len(arena)
		arena = append(arena, arena[last:last+shared]...)
		arena = append(arena, r.Bytes(r.Uvarint())...)
		last, ends[i] = start, len(arena)
		e := &ents[i]
		flags := r.Bytes(1)
		if len(flags) != 1 {
			break
		}
		e.Kept, e.Racy = flags[0]&flagKept != 0, flags[0]&flagRacy != 0
		e.Mode = fs.FileMode(r.Uvarint())
		if e.Mode.IsDir() {
			continue
		}
		e.Size = r.Varint()
		e.Mtime = r.Varint()
		e.Ctime = r.Varint()
		e.Ino = r.Uvarint()
		if flags[0]&flagSum != 0 {
			copy(e.Sum[:], r.Bytes(32))
		}
		if flags[0]&flagLink != 0 {
			e.Link = r.String()
		}
	}
	if r.Err() != nil || r.Len() != 0 {
		return nil, errCorrupt
	}
	paths := string(arena)
	m.Entries = make(map[string]*Entry, n)
	start := 0
	for i := range ents {
		ents[i].Path = paths[start:ends[i]]
		start = ends[i]
		m.Entries[ents[i].Path] = &ents[i]
	}
	return m, nil
}
