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
)

// The manifest is a compact binary file, not JSON: a tree of 50,000 files
// is read and written on every command, and JSON would cost tens of
// milliseconds each way. Its last 32 bytes are the sha256 of the rest, so
// a torn or damaged manifest is never trusted.
var magic = []byte("aw-snapshot 2\n")

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
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return err
	}
	return writeAtomic(s.manifestPath(), encode(m))
}

func encode(m *Manifest) []byte {
	paths := make([]string, 0, len(m.Entries))
	for p := range m.Entries {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	b := make([]byte, 0, 64+len(paths)*96)
	b = append(b, magic...)
	b = binary.AppendVarint(b, m.Taken.UnixNano())
	b = binary.AppendUvarint(b, uint64(m.Unkept))
	b = binary.AppendUvarint(b, uint64(m.Racy))
	b = binary.AppendUvarint(b, uint64(len(paths)))
	for _, p := range paths {
		e := m.Entries[p]
		b = appendString(b, e.Path)
		b = binary.AppendUvarint(b, uint64(e.Mode))
		b = binary.AppendVarint(b, e.Size)
		b = binary.AppendVarint(b, e.Mtime)
		b = binary.AppendVarint(b, e.Ctime)
		b = binary.AppendUvarint(b, e.Ino)
		b = append(b, e.Sum[:]...)
		b = appendString(b, e.Link)
		var flags byte
		if e.Kept {
			flags |= 1
		}
		if e.Racy {
			flags |= 2
		}
		b = append(b, flags)
	}
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

var errCorrupt = errors.New("snapshot manifest is damaged")

func decode(b []byte) (*Manifest, error) {
	if len(b) < len(magic)+32 || !bytes.HasPrefix(b, magic) {
		return nil, errCorrupt
	}
	body := b[:len(b)-32]
	if sha256.Sum256(body) != [32]byte(b[len(b)-32:]) {
		return nil, errCorrupt
	}
	r := reader{b: body[len(magic):]}
	m := &Manifest{Taken: time.Unix(0, r.varint())}
	m.Unkept = int(r.uvarint())
	m.Racy = int(r.uvarint())
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		return nil, errCorrupt
	}
	m.Entries = make(map[string]*Entry, n)
	for i := uint64(0); i < n && r.err == nil; i++ {
		e := &Entry{}
		e.Path = r.string()
		e.Mode = fs.FileMode(r.uvarint())
		e.Size = r.varint()
		e.Mtime = r.varint()
		e.Ctime = r.varint()
		e.Ino = r.uvarint()
		copy(e.Sum[:], r.bytes(32))
		e.Link = r.string()
		flags := r.bytes(1)
		if len(flags) == 1 {
			e.Kept, e.Racy = flags[0]&1 != 0, flags[0]&2 != 0
		}
		m.Entries[e.Path] = e
	}
	if r.err != nil || len(r.b) != 0 {
		return nil, errCorrupt
	}
	return m, nil
}

// reader decodes the manifest; the first short read sets err.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err, r.b = errCorrupt, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err, r.b = errCorrupt, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) bytes(n int) []byte {
	if n > len(r.b) {
		r.err, r.b = errCorrupt, nil
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) string() string {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.err, r.b = errCorrupt, nil
		return ""
	}
	return string(r.bytes(int(n)))
}
